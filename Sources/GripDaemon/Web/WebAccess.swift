import Foundation
import GripProtocol
import GripStore
import Logging
import Synchronization

/// Who may use griptrackd's web app (docs/web.md): the one-time pairing codes (in memory only), and the stored
/// credentials (SHA-256 of each secret in the database), with a copy of the valid ones in memory so that checking a
/// request costs a hash and a dictionary look-up, and a revocation counts from the moment it is stored.
///
/// The socket thread hands `WEB` requests (root or group griptrack-admin) to ``handle(_:replies:)``, which does the
/// database work on a queue of its own, never on the socket thread; the web layer calls ``redeem(code:now:)`` and
/// ``identity(secret:)`` directly.
///
/// - Important: Thread-safe.
package final class WebAccess: Sendable {
    /// How long a pairing code may be used.
    package static let pairingLifetime: TimeInterval = 600
    /// Pairing codes waiting at once at most; making one more forgets the oldest.
    static let pendingCodesLimit = 16
    /// Letters and digits that cannot be mistaken for each other when typed from a screen (no 0/O, 1/I/L).
    static let codeAlphabet = Array("ABCDEFGHJKMNPQRSTUVWXYZ23456789")
    static let codeLength = 8

    /// A valid credential as a request presents it.
    package struct Identity: Sendable, Equatable {
        package var name: String
        package var role: WebRole
        /// The secret's SHA-256 (to check later that it is still valid).
        package var secretHash: String
    }

    struct PendingCode {
        var role: WebRole
        var name: String
        var expires: Date
    }

    /// Why a pairing code was not accepted.
    package enum RedeemProblem: Error, Sendable, Equatable, CustomStringConvertible {
        /// Unknown, used already, or expired (one answer for all three: a guesser learns nothing).
        case invalidCode
        /// The name the code was made for has been given to another credential meanwhile.
        case nameTaken(String)
        /// The database refused the write.
        case store(String)

        package var description: String {
            switch self {
            case .invalidCode:
                "This pairing code is unknown, used or expired. Ask for a new one with `griptrack web pair`."
            case .nameTaken(let name):
                "A credential called \(name) exists already. Revoke it (`griptrack web revoke \(name)`) or pair with another --name."
            case .store(let text): "The daemon could not store the session: \(text)"
            }
        }
    }

    let store: RecordingStore
    let logger: Logger
    private let codes = Mutex<[String: PendingCode]>([:])
    private let valid = Mutex<[String: Identity]>([:])
    private let listening = Mutex<(address: String, scheme: String)?>(nil)
    private let queue = DispatchQueue(label: "griptrack.web-access")

    /// Loads the valid credentials.
    /// - Throws: the store's error when the credentials cannot be read.
    init(store: RecordingStore, logger: Logger) throws(GripStoreError) {
        self.store = store
        self.logger = logger
        let all = try store.webCredentials()
        valid.withLock { valid in
            for credential in all where credential.revokedAt == nil {
                valid[credential.secretHash] = Identity(
                    name: credential.name, role: credential.role, secretHash: credential.secretHash)
            }
        }
    }

    /// Where the web app listens (`HOST:PORT`, the port as bound), for the pairing reply; nil while it does not.
    package var listenAddress: String? { listening.withLock { $0?.address } }

    /// `https` when the web app serves TLS, else `http`; nil while it does not listen.
    package var listenScheme: String? { listening.withLock { $0?.scheme } }

    /// The web layer: says where it listens once bound, and how (nil when it stops).
    package func setListenAddress(_ address: String?, scheme: String = "http") {
        listening.withLock { $0 = address.map { ($0, scheme) } }
    }

    // MARK: - The web layer

    /// The credential a secret (cookie or bearer token) stands for, if it is valid now.
    package func identity(secret: String) -> Identity? {
        let hash = RecordingStore.webSecretHash(secret)
        return valid.withLock { $0[hash] }
    }

    /// Whether the credential with this secret hash is still valid (an open event stream asks as it goes).
    package func isValid(secretHash: String) -> Bool {
        valid.withLock { $0[secretHash] != nil }
    }

    /// Uses a pairing code once: stores a new session credential and returns its secret (the cookie's value).
    /// - Returns: the secret and the stored credential, or why the code was refused.
    package func redeem(code: String, now: Date = Date()) -> Result<(secret: String, credential: WebCredential), RedeemProblem> {
        let key = code.uppercased()
        let pending: PendingCode? = codes.withLock { codes in
            // Single use: the code is gone whatever happens next.
            guard let pending = codes.removeValue(forKey: key), pending.expires > now else { return nil }
            return pending
        }
        guard let pending else { return .failure(.invalidCode) }
        let secret = Self.newSecret()
        let credential = WebCredential(
            name: pending.name, role: pending.role, kind: .session, secretHash: RecordingStore.webSecretHash(secret),
            createdAt: now)
        do {
            guard try store.addWebCredential(credential) else { return .failure(.nameTaken(pending.name)) }
        } catch {
            return .failure(.store(error.description))
        }
        remember(credential)
        logger.notice("Web browser paired", metadata: ["web.name": "\(credential.name)", "web.role": "\(credential.role)"])
        return .success((secret, credential))
    }

    // MARK: - Administration (the socket's WEB requests)

    /// Makes a pairing code for a browser that will get `role`, named `name`.
    func makePairingCode(role: WebRole, name: String, now: Date) -> (code: String, expires: Date) {
        var generator = SystemRandomNumberGenerator()
        let code = String((0..<Self.codeLength).map { _ in Self.codeAlphabet.randomElement(using: &generator)! })
        let expires = now.addingTimeInterval(Self.pairingLifetime)
        codes.withLock { codes in
            codes = codes.filter { $0.value.expires > now }
            if codes.count >= Self.pendingCodesLimit, let oldest = codes.min(by: { $0.value.expires < $1.value.expires }) {
                codes.removeValue(forKey: oldest.key)
            }
            codes[code] = PendingCode(role: role, name: name, expires: expires)
        }
        return (code, expires)
    }

    /// Stores a bearer token; nil when the name is taken.
    func createToken(role: WebRole, name: String, now: Date) throws(GripStoreError) -> String? {
        let secret = Self.newSecret()
        let credential = WebCredential(
            name: name, role: role, kind: .token, secretHash: RecordingStore.webSecretHash(secret), createdAt: now)
        guard try store.addWebCredential(credential) else { return nil }
        remember(credential)
        return secret
    }

    /// Revokes a credential; it stops working at once, open event streams included.
    func revoke(name: String, now: Date) throws(GripStoreError) -> WebCredential? {
        guard let revoked = try store.revokeWebCredential(named: name, at: now) else { return nil }
        _ = valid.withLock { $0.removeValue(forKey: revoked.secretHash) }
        return revoked
    }

    func credentials() throws(GripStoreError) -> [WebCredential] { try store.webCredentials() }

    /// Runs `work` off the socket thread (it may write the database).
    func perform(_ work: @escaping @Sendable () -> Void) {
        queue.async(execute: work)
    }

    private func remember(_ credential: WebCredential) {
        valid.withLock {
            $0[credential.secretHash] = Identity(
                name: credential.name, role: credential.role, secretHash: credential.secretHash)
        }
    }

    /// 32 random bytes, base64url without padding (43 characters).
    static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
