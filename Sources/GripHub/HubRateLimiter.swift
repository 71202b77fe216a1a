import Foundation
import NIOCore
import Synchronization

/// The notification endpoint's rate limit, per client address (``RequestWindow`` under a lock).
final class HubRateLimiter: Sendable {
    private let window: Mutex<RequestWindow>

    init(limit: Int) {
        window = Mutex(RequestWindow(limit: limit))
    }

    /// Counts a request; false when the client has used up its minute.
    ///
    /// - Parameters:
    ///   - peer: The connection's address.
    ///   - forwardedFor: The `X-Forwarded-For` header: behind the reverse proxy every peer is the proxy on
    ///     loopback, so the client is the address the proxy appended last. A non-loopback peer's header is ignored
    ///     (anyone can write one).
    ///   - now: The clock.
    func admit(peer: SocketAddress?, forwardedFor: String?, now: Date = Date()) -> Bool {
        let client = Self.client(peer: peer, forwardedFor: forwardedFor)
        return window.withLock { $0.admit(client, now: now) }
    }

    static func client(peer: SocketAddress?, forwardedFor: String?) -> String {
        let address = peer?.ipAddress ?? "unknown"
        let loopback = address == "127.0.0.1" || address == "::1" || address.hasPrefix("::ffff:127.")
        if loopback, let forwardedFor,
            let last = forwardedFor.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            return String(last.prefix(64))
        }
        return address
    }
}
