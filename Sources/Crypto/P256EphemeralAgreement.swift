import COpenSSL
import Synchronization

/// The sender's half of one Web Push key agreement (RFC 8291 §3.1): a fresh scalar k, its public
/// point k·G, and the x-coordinate of k·P with the browser's point P — the multiplications
/// `EVP_PKEY_generate` and `EVP_PKEY_derive` make, done on OpenSSL's EC layer directly. Through
/// EVP each push also made two key objects, a derivation context and a copy of the curve, and
/// went through the provider's dispatch and parameter passing: as much again as the fixed-base
/// multiplication itself, for a key used once.
package struct P256EphemeralAgreement: Sendable {
    /// k·G, uncompressed (65 bytes): the `keyid` of the `aes128gcm` header.
    package let publicKey: [UInt8]
    /// The x-coordinate of k·P (32 bytes), the ECDH shared secret.
    package let secret: [UInt8]

    /// With a fresh random scalar. `peer` must be an uncompressed point on P-256.
    package init(peer: [UInt8]) throws(CryptoError) {
        try self.init(peer: peer, scalar: nil)
    }

    /// With a given scalar (32 bytes, big-endian): RFC vectors and tests only — never reuse one.
    package init(peer: [UInt8], scalar: [UInt8]?) throws(CryptoError) {
        guard peer.count == 65, peer[0] == 0x04 else {
            throw CryptoError(message: "the peer's key is not an uncompressed P-256 point")
        }
        guard let group = P256Workspace.group else { throw CryptoError.openSSL("P-256 group") }
        let workspace = try P256Workspace.take()
        defer { P256Workspace.putBack(workspace) }
        let context = workspace.context
        // `oct2point` sets the affine coordinates, which checks they are below the prime and on
        // the curve: a point from outside is never multiplied unchecked.
        guard EC_POINT_oct2point(group, workspace.peer, peer, peer.count, context) == 1 else {
            ERR_clear_error()
            throw CryptoError(message: "the peer's key is not a point on P-256")
        }
        try workspace.setScalar(scalar, group: group)
        defer { BN_clear(workspace.scalar) }
        var publicKey = [UInt8](repeating: 0, count: 65)
        var secret = [UInt8](repeating: 0, count: 32)
        guard EC_POINT_mul(group, workspace.publicPoint, workspace.scalar, nil, nil, context) == 1,
              EC_POINT_mul(group, workspace.sharedPoint, nil, workspace.peer, workspace.scalar, context) == 1,
              EC_POINT_get_affine_coordinates(group, workspace.sharedPoint, workspace.x, nil, context) == 1,
              BN_bn2binpad(workspace.x, &secret, 32) == 32,
              EC_POINT_point2oct(group, workspace.publicPoint, POINT_CONVERSION_UNCOMPRESSED, &publicKey, 65, context) == 65
        else { throw CryptoError.openSSL("P-256 key agreement") }
        self.publicKey = publicKey
        self.secret = secret
    }
}

/// One agreement's OpenSSL objects (a big-number context, the scalar and three points), kept for
/// reuse: allocating them costs a good part of what they are used for. Not thread-safe, so an
/// agreement takes one from the pool (or makes one) and puts it back; at most `capacity` wait.
private final class P256Workspace: @unchecked Sendable {
    /// P-256 by name, so OpenSSL picks its dedicated implementation; only read once made.
    nonisolated(unsafe) static let group: OpaquePointer? = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1)
    private static let capacity = 16
    private static let idle = Mutex<[P256Workspace]>([])

    let context: OpaquePointer
    let scalar: OpaquePointer
    let x: OpaquePointer
    let peer: OpaquePointer
    let publicPoint: OpaquePointer
    let sharedPoint: OpaquePointer

    private init(group: OpaquePointer) throws(CryptoError) {
        guard let context = BN_CTX_secure_new() else { throw CryptoError.openSSL("BN_CTX_secure_new") }
        guard let scalar = BN_secure_new(), let x = BN_new(), let peer = EC_POINT_new(group),
              let publicPoint = EC_POINT_new(group), let sharedPoint = EC_POINT_new(group) else {
            BN_CTX_free(context)
            throw CryptoError.openSSL("P-256 workspace")
        }
        BN_set_flags(scalar, BN_FLG_CONSTTIME)
        (self.context, self.scalar, self.x, self.peer, self.publicPoint, self.sharedPoint)
            = (context, scalar, x, peer, publicPoint, sharedPoint)
    }

    deinit {
        EC_POINT_clear_free(sharedPoint)
        EC_POINT_free(publicPoint)
        EC_POINT_free(peer)
        BN_free(x)
        BN_clear_free(scalar)
        BN_CTX_free(context)
    }

    static func take() throws(CryptoError) -> P256Workspace {
        if let pooled = idle.withLock({ $0.popLast() }) { return pooled }
        guard let group else { throw CryptoError.openSSL("P-256 group") }
        return try P256Workspace(group: group)
    }

    static func putBack(_ workspace: P256Workspace) {
        idle.withLock { idle in
            if idle.count < capacity { idle.append(workspace) }
        }
    }

    /// The scalar: `given` (checked to be in 1..<n), else uniformly random in 1..<n.
    func setScalar(_ given: [UInt8]?, group: OpaquePointer) throws(CryptoError) {
        guard let order = EC_GROUP_get0_order(group) else { throw CryptoError.openSSL("P-256 order") }
        if let given {
            guard given.count == 32, BN_bin2bn(given, 32, scalar) != nil,
                  BN_is_zero(scalar) == 0, BN_cmp(scalar, order) < 0 else {
                throw CryptoError(message: "a P-256 private key is a 32-byte scalar below the group order")
            }
        } else {
            repeat {
                guard BN_priv_rand_range_ex(scalar, order, 0, context) == 1 else {
                    throw CryptoError.openSSL("P-256 random scalar")
                }
            } while BN_is_zero(scalar) == 1
        }
        BN_set_flags(scalar, BN_FLG_CONSTTIME)
    }
}
