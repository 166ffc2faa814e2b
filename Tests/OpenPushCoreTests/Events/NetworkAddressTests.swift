import OpenPushCore
import Testing

/// Which answers a webhook may connect to: only public unicast, in IPv4, IPv6 and IPv4-mapped IPv6.
@Suite struct NetworkAddressTests {
    @Test(arguments: [
        ("0.0.0.0", NetworkAddress.Kind.unspecified), ("0.1.2.3", .reserved),
        ("10.0.0.1", .private), ("172.16.0.1", .private), ("172.31.255.255", .private), ("192.168.1.1", .private),
        ("100.64.0.1", .private), ("127.0.0.1", .loopback), ("127.255.0.9", .loopback), ("169.254.169.254", .linkLocal),
        ("224.0.0.1", .multicast), ("255.255.255.255", .reserved), ("192.0.2.1", .reserved), ("198.18.0.1", .reserved),
        ("8.8.8.8", .public), ("172.15.0.1", .public), ("172.32.0.1", .public), ("100.128.0.1", .public),
        ("93.184.216.34", .public),
    ])
    func ipv4(_ text: String, _ kind: NetworkAddress.Kind) throws {
        let address = try #require(NetworkAddress(text))
        #expect(address.kind == kind)
        #expect(address.description == text)
    }

    @Test(arguments: [
        ("::", NetworkAddress.Kind.unspecified), ("::1", .loopback), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
        ("fc00::1", .uniqueLocal), ("fd12:3456::1", .uniqueLocal), ("ff02::1", .multicast), ("2001:db8::1", .reserved),
        ("fec0::1", .private), ("2606:4700:4700::1111", .public), ("2a00:1450:4001:81b::200e", .public),
        // IPv4-mapped and NAT64: the embedded IPv4 address decides.
        ("::ffff:127.0.0.1", .loopback), ("::ffff:10.1.2.3", .private), ("::ffff:169.254.1.1", .linkLocal),
        ("::ffff:7f00:1", .loopback), ("::ffff:8.8.8.8", .public), ("64:ff9b::10.0.0.1", .private),
        ("64:ff9b::8.8.8.8", .public), ("::127.0.0.1", .reserved), ("2002:0a00:0001::1", .reserved),
    ])
    func ipv6(_ text: String, _ kind: NetworkAddress.Kind) throws {
        #expect(try #require(NetworkAddress(text)).kind == kind)
    }

    @Test func bytesAndText() throws {
        #expect(NetworkAddress(bytes: [127, 0, 0, 1])?.kind == .loopback)
        #expect(NetworkAddress(bytes: [1, 2, 3]) == nil)
        #expect(try #require(NetworkAddress("::ffff:127.0.0.1")).description == "0:0:0:0:0:ffff:7f00:1")
        #expect(try #require(NetworkAddress("2001:db8::1")).bytes == [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1])
        for bad in ["", "1.2.3", "1.2.3.256", "01.2.3.4", "1::2::3", "12345::", "example.com", "1:2:3:4:5:6:7:8:9", "::g"] {
            #expect(NetworkAddress(bad) == nil, "\(bad)")
        }
    }
}
