import NIOCore

/// Who a rate limit counts a request against: an IPv4 address, or an IPv6 address's /64 (one customer's
/// network: a home or a phone gets a whole /64, so counting single addresses would give one person 2^64 budgets).
package enum ClientKey: Hashable, Sendable, CustomStringConvertible {
    /// An IPv4 address, as its 32 bits.
    case ipv4(UInt32)
    /// The upper 64 bits of an IPv6 address.
    case ipv6Network(UInt64)
    /// A peer without an IP address (a Unix socket, a test), or one of the clients past a budget's table size.
    case overflow

    /// The key of a connection's peer, or of the client a trusted reverse proxy on loopback names last in
    /// `X-Forwarded-For` (anyone else can write that header, so it is ignored from other peers).
    ///
    /// - Parameters:
    ///   - peer: The connection's remote address.
    ///   - forwardedFor: The request's `X-Forwarded-For` header, if any.
    package init(peer: SocketAddress?, forwardedFor: String? = nil) {
        if let peer, Self(peer).isLoopback, let forwardedFor,
            let last = forwardedFor.split(separator: ",").last?.trimmingCharacters(in: .whitespaces),
            let named = try? SocketAddress(ipAddress: last, port: 0)
        {
            self = Self(named)
            return
        }
        self = peer.map(Self.init) ?? .overflow
    }

    private init(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self = .ipv4(UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            // An IPv4-mapped address (::ffff:a.b.c.d) is the IPv4 client it maps.
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                self = .ipv4(bytes[12..<16].reduce(0) { $0 << 8 | UInt32($1) })
            } else {
                self = .ipv6Network(bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) })
            }
        case .unixDomainSocket:
            self = .overflow
        }
    }

    /// 127.0.0.0/8 or ::1.
    var isLoopback: Bool {
        switch self {
        case .ipv4(let address): address >> 24 == 127
        case .ipv6Network(let network): network == 0  // ::1 and :: (the /64 of ::1 is 0)
        case .overflow: false
        }
    }

    /// The address (or `…::/64` network) for a log line.
    package var description: String {
        switch self {
        case .ipv4(let address):
            return [24, 16, 8, 0].map { String((address >> UInt32($0)) & 0xff) }.joined(separator: ".")
        case .ipv6Network(let network):
            let groups = [48, 32, 16, 0].map { String((network >> UInt64($0)) & 0xffff, radix: 16) }
            return groups.joined(separator: ":") + "::/64"
        case .overflow:
            return "(other)"
        }
    }
}
