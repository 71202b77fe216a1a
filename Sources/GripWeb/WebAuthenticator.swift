import Foundation
import GripDaemon
import GripProtocol
import GripStore
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// Decides who a request comes from and what it may do (docs/web.md, "Roles"), before anything reaches the daemon:
/// the web layer's socket connection runs as the daemon's own user, so the daemon cannot tell browsers apart.
struct WebAuthenticator: Sendable {
    /// The session cookie's name.
    static let cookieName = "griptrack_session"
    /// The header a cookie-authenticated state-changing request must carry.
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// Who is asking.
    struct Caller: Sendable {
        /// The credential's name; nil for an anonymous visitor.
        var name: String?
        var role: WebRole
        /// The credential's secret hash (to notice a revocation during a stream); nil for an anonymous visitor.
        var secretHash: String?
        /// Authenticated by the session cookie (so state changes need the CSRF header).
        var viaCookie: Bool
        /// The CSRF token for a cookie session.
        var csrfToken: String?
    }

    let access: WebAccess
    let anonymous: WebRole?

    /// The caller, or `WebError.unauthenticated`.
    func caller(_ request: Request) throws(WebError) -> Caller {
        if let header = request.headers[.authorization] {
            guard header.lowercased().hasPrefix("bearer ") else { throw .unauthenticated }
            let token = String(header.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces)
            guard let identity = access.identity(secret: token) else { throw .unauthenticated }
            return Caller(
                name: identity.name, role: identity.role, secretHash: identity.secretHash, viaCookie: false, csrfToken: nil)
        }
        if let cookie = request.cookies[Self.cookieName] {
            // A cookie that no longer counts (revoked) is refused outright, even where anonymous visitors may watch:
            // the page then says so instead of quietly showing less.
            guard let identity = access.identity(secret: cookie.value) else { throw .unauthenticated }
            return Caller(
                name: identity.name, role: identity.role, secretHash: identity.secretHash, viaCookie: true,
                csrfToken: Self.csrfToken(secret: cookie.value))
        }
        guard let anonymous else { throw .unauthenticated }
        return Caller(name: nil, role: anonymous, secretHash: nil, viaCookie: false, csrfToken: nil)
    }

    /// The caller, if its role is at least `role`; a state-changing request with a cookie must carry the CSRF header.
    func require(_ role: WebRole, _ request: Request) throws(WebError) -> Caller {
        let caller = try caller(request)
        guard caller.role >= role else { throw .forbidden(needs: role.rawValue) }
        if request.method != .get && request.method != .head && caller.viaCookie {
            guard let sent = request.headers[Self.csrfHeader], let expected = caller.csrfToken,
                Self.constantTimeEqual(sent, expected)
            else { throw .csrf }
        }
        return caller
    }

    /// A cookie session's CSRF token: derived from its secret, so nothing more is stored, and readable only by a
    /// page of this origin (`GET /api/session`).
    static func csrfToken(secret: String) -> String {
        String(RecordingStore.webSecretHash("csrf:" + secret).prefix(32))
    }

    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
