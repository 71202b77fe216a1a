import Crypto
import Foundation

/// The operator's Ed25519 public key, as a Pi trusts it (`[sync] operator_key`): the only key whose statements
/// can grant Pro centrally (docs/account.md, "Central grants").
public struct OperatorKey: Sendable, Equatable {
    /// The 32 raw bytes (swift-crypto's key types are not `Sendable`; a value of bytes is).
    let raw: Data

    /// The key itself; the bytes were checked to make one when this value was created.
    var key: Curve25519.Signing.PublicKey {
        try! Curve25519.Signing.PublicKey(rawRepresentation: raw)
    }

    /// A key from its configuration form: the 32 raw bytes in base64 (`griptrack admin key generate` prints it).
    ///
    /// - Parameter text: Base64, standard or URL-safe.
    /// - Returns: `nil` when the text is not 32 bytes of base64.
    public init?(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Data(base64Encoded: trimmed) ?? OperatorStatement.data(base64URL: Substring(trimmed)),
            bytes.count == 32, (try? Curve25519.Signing.PublicKey(rawRepresentation: bytes)) != nil
        else { return nil }
        raw = bytes
    }

    init(_ key: Curve25519.Signing.PublicKey) {
        raw = key.rawRepresentation
    }

    /// The configuration form.
    public var text: String { raw.base64EncodedString() }
}
