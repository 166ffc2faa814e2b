package import HTTPClient
import OpenPushCore

extension HTTPClientRequest {
    /// A peer check for URLs that others chose (webhooks, browser push endpoints): the address
    /// libcurl actually connects to must be public, whatever resolved the host.
    package static let publicPeersOnly: PeerFilter = { bytes in
        guard let address = NetworkAddress(bytes: bytes) else { return "refused a connection to an unknown kind of address" }
        return address.isPublic ? nil : "refused address \(address) (\(address.kind.rawValue)) when connecting"
    }
}
