import Crypto
import Foundation

/// The operator's Ed25519 private key (`griptrack admin grant` and `admin revoke` sign with it). It lives only on
/// the operator's machine, in a file readable by the operator alone; Pis hold its public half.
public struct OperatorSigningKey: Sendable {
    /// The 32 raw bytes (swift-crypto's key types are not `Sendable`; a value of bytes is).
    let raw: Data

    /// The key itself; the bytes were checked to make one when this value was created.
    var key: Curve25519.Signing.PrivateKey {
        try! Curve25519.Signing.PrivateKey(rawRepresentation: raw)
    }

    /// A new random key.
    public init() {
        raw = Curve25519.Signing.PrivateKey().rawRepresentation
    }

    /// A key from its file form: the 32 raw bytes in base64.
    ///
    /// - Parameter text: Base64 (surrounding white space is ignored).
    /// - Returns: `nil` when the text is not a key.
    public init?(_ text: String) {
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == 32,
            (try? Curve25519.Signing.PrivateKey(rawRepresentation: bytes)) != nil
        else { return nil }
        raw = bytes
    }

    /// The file form (secret).
    public var text: String { raw.base64EncodedString() }

    /// The public half, for the Pis' `[sync] operator_key`.
    public var publicKey: OperatorKey { OperatorKey(key.publicKey) }
}
