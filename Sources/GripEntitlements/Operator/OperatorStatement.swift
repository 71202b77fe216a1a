import Crypto
import Foundation

/// A central Pro grant or revocation for one account, signed by the operator's Ed25519 key (`griptrack admin grant`,
/// `admin revoke`; docs/account.md, "Central grants").
///
/// Pis trust the operator's public key through their configuration, not the database: a statement that does not
/// verify under that key, names another account, or was edited after signing is refused, whoever wrote its row.
/// The signed form is `base64url(JSON) "." base64url(signature)`, the signature over the JSON bytes exactly as sent.
public struct OperatorStatement: Codable, Sendable, Equatable {
    /// What the statement does.
    public enum Action: String, Codable, Sendable, Equatable {
        /// Pro for the account, until `expires` (or for good).
        case grant
        /// Ends a central grant.
        case revoke
    }

    /// Unique per statement.
    public var id: UUID
    /// The account it is for (`[sync] account`).
    public var account: String
    public var action: Action
    /// Why (shown in `pro status`).
    public var note: String
    /// When the grant ends; `nil` for never (and for a revocation).
    public var expires: Date?
    /// When the operator signed it; a Pi applies statements in this order, each only once.
    public var issued: Date

    /// Creates a statement.
    /// - Parameters: See the properties.
    public init(id: UUID = UUID(), account: String, action: Action, note: String, expires: Date?, issued: Date) {
        self.id = id
        self.account = account
        self.action = action
        self.note = note
        self.expires = expires
        self.issued = issued
    }

    /// The signed form.
    ///
    /// - Parameter key: The operator's private key.
    /// - Returns: `base64url(JSON).base64url(signature)`.
    /// - Throws: When encoding or signing fails.
    public func signed(with key: OperatorSigningKey) throws -> String {
        let json = try Self.encoder.encode(self)
        return Self.base64URL(json) + "." + Self.base64URL(try key.key.signature(for: json))
    }

    /// Verifies a signed statement.
    ///
    /// - Parameters:
    ///   - signed: The signed form, as stored.
    ///   - key: The operator's public key, from this device's configuration.
    ///   - account: This device's account: a statement for another is refused.
    /// - Returns: The statement, or why it is refused (nothing of a refused statement may be applied).
    public static func verify(
        _ signed: String, key: OperatorKey, account: String
    ) -> Result<OperatorStatement, OperatorStatementRefusal> {
        let parts = signed.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let json = data(base64URL: parts[0]), let signature = data(base64URL: parts[1]) else {
            return .failure(.malformed)
        }
        guard key.key.isValidSignature(signature, for: json) else { return .failure(.badSignature) }
        guard let statement = try? decoder.decode(OperatorStatement.self, from: json) else { return .failure(.malformed) }
        guard statement.account == account else { return .failure(.otherAccount(statement.account)) }
        return .success(statement)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return decoder
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: Substring) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
