import Crypto
import X509

/// A root certificate that App Store signed data must chain to.
///
/// Production uses ``appleRootCAG3()``, the bundled Apple Root CA - G3 whose SHA-256 fingerprint is pinned and
/// checked on every load. Tests use ``init(derEncoded:)`` with the upstream test root.
public struct TrustRoot: Hashable, Sendable {
    /// The certificate's DER bytes.
    public let derEncoded: [UInt8]
    let certificate: Certificate

    /// The pinned SHA-256 fingerprint of Apple Root CA - G3.
    public static let appleRootCAG3Fingerprint = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// Parses a DER certificate to trust.
    ///
    /// - Parameter derEncoded: The certificate's DER bytes.
    /// - Throws: ``EntitlementError/invalidConfiguration(_:)`` when the bytes are not a certificate.
    public init(derEncoded: [UInt8]) throws(EntitlementError) {
        do {
            self.certificate = try Certificate(derEncoded: derEncoded)
        } catch {
            throw .invalidConfiguration("trust root is not a DER certificate (\(error))")
        }
        self.derEncoded = derEncoded
    }

    /// The bundled Apple Root CA - G3, after checking its SHA-256 fingerprint against the pinned one.
    ///
    /// - Returns: The root App Store data must chain to in Sandbox and Production.
    /// - Throws: ``EntitlementError/invalidConfiguration(_:)`` if the bundled bytes do not match the pin.
    public static func appleRootCAG3() throws(EntitlementError) -> TrustRoot {
        let bytes = appleRootCAG3DER
        guard sha256Hex(bytes) == appleRootCAG3Fingerprint else {
            throw .invalidConfiguration("bundled Apple Root CA - G3 does not match its pinned SHA-256 fingerprint")
        }
        return try TrustRoot(derEncoded: bytes)
    }

    /// The lowercase hex SHA-256 of this root's DER bytes.
    public var sha256Fingerprint: String { Self.sha256Hex(derEncoded) }

    static func sha256Hex(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    public static func == (lhs: TrustRoot, rhs: TrustRoot) -> Bool { lhs.derEncoded == rhs.derEncoded }
    public func hash(into hasher: inout Hasher) { hasher.combine(derEncoded) }
}
