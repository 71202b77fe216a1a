import Crypto
import Foundation
import SwiftASN1
@testable import GripEntitlements
import X509

/// Fixed times: tests never read the wall clock.
enum Reference {
    /// 2025-11-01T00:00:00Z: every upstream test certificate is valid then.
    static let now = Date(timeIntervalSince1970: 1_761_955_200)

    static func date(_ iso: String) -> Date {
        guard let date = try? Date(iso, strategy: .iso8601) else { fatalError("bad test date \(iso)") }
        return date
    }

    static let day: TimeInterval = 86_400
}

/// The copied vectors, located through `Bundle.module` (works on Linux: SwiftPM generates the accessor).
enum Vectors {
    static func url(_ relative: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Vectors").appendingPathComponent(relative)
    }

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: url(relative), encoding: .utf8)
    }

    static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(relative)))
    }

    static func root(_ name: String) throws -> TrustRoot {
        switch name {
        case "test": return try TrustRoot(derEncoded: bytes("certs/testCA.der"))
        case "apple_root_ca_g3": return try TrustRoot.appleRootCAG3()
        default: fatalError("unknown root \(name)")
        }
    }
}

/// Builds a verifier for tests.
func makeVerifier(
    bundleId: String = "com.example", environment: AppStoreEnvironment = .sandbox, appAppleId: Int64? = 1234,
    roots: [TrustRoot], allowLocallySigned: Bool = false
) throws -> AppStoreVerifier {
    var configuration = try AppStoreVerifier.Configuration(
        bundleId: bundleId, environment: environment, appAppleId: appAppleId, trustRoots: roots)
    configuration.allowsLocallySignedDataForTests = allowLocallySigned
    return try AppStoreVerifier(configuration: configuration)
}

/// A minted App Store-shaped PKI (root → intermediate with the WWDR OID → leaf with the receipt-signer OID),
/// so payloads with real content (expiry, revocation, grace) can be signed; Apple ships no test leaf key.
struct TestPKI {
    let rootDER: [UInt8]
    let intermediateDER: [UInt8]
    let leafDER: [UInt8]
    let leafKey: P256.Signing.PrivateKey

    var trustRoot: TrustRoot { get throws { try TrustRoot(derEncoded: rootDER) } }

    init(leafOID: ASN1ObjectIdentifier = AppStoreChainPolicy.receiptSignerLeafOID) throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let from = Reference.date("2020-01-01T00:00:00Z")
        let until = Reference.date("2040-01-01T00:00:00Z")
        let rootName = try DistinguishedName { CommonName("griptrack test root") }
        let intermediateName = try DistinguishedName { CommonName("griptrack test WWDR") }
        let leafName = try DistinguishedName { CommonName("griptrack test signer") }
        let null: ArraySlice<UInt8> = [0x05, 0x00]

        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: from, notValidAfter: until, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                KeyUsage(keyCertSign: true)
            },
            issuerPrivateKey: .init(rootKey))
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
            notValidBefore: from, notValidAfter: until, issuer: rootName, subject: intermediateName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                KeyUsage(keyCertSign: true)
                Certificate.Extension(oid: AppStoreChainPolicy.wwdrIntermediateOID, critical: false, value: null)
            },
            issuerPrivateKey: .init(rootKey))
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: from, notValidAfter: until, issuer: intermediateName, subject: leafName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                KeyUsage(digitalSignature: true)
                Certificate.Extension(oid: leafOID, critical: false, value: null)
            },
            issuerPrivateKey: .init(intermediateKey))

        func der(_ certificate: Certificate) throws -> [UInt8] {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
        self.rootDER = try der(root)
        self.intermediateDER = try der(intermediate)
        self.leafDER = try der(leaf)
        self.leafKey = leafKey
    }

    /// Signs a JSON payload as the App Store does (ES256, raw r‖s, x5c = leaf, intermediate, root).
    func sign(_ payload: [String: Any], alg: String = "ES256", derSignature: Bool = false) throws -> String {
        let header: [String: Any] = [
            "alg": alg, "typ": "JWT",
            "x5c": [leafDER, intermediateDER, rootDER].map { Data($0).base64EncodedString() },
        ]
        let headerPart = try base64URL(JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let payloadPart = try base64URL(JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
        let signature = try leafKey.signature(for: Data((headerPart + "." + payloadPart).utf8))
        let signaturePart = base64URL(derSignature ? signature.derRepresentation : signature.rawRepresentation)
        return headerPart + "." + payloadPart + "." + signaturePart
    }

    private func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// Milliseconds since 1970, as App Store payloads carry dates.
func ms(_ date: Date) -> Double { date.timeIntervalSince1970 * 1000 }

// MARK: - Building verified data for resolver tests (only `@testable` can; the verifier is the real source)

func transaction(
    otid: String = "1000", product: String = "pro.yearly", signed: Date, expires: Date?,
    revoked: Date? = nil, revocationType: String? = nil, offerType: Int? = nil, isUpgraded: Bool? = nil,
    type: String = "Auto-Renewable Subscription", environment: AppStoreEnvironment = .sandbox
) -> VerifiedSignedData {
    .transaction(Verified(payload: transactionPayload(
        otid: otid, product: product, signed: signed, expires: expires, revoked: revoked,
        revocationType: revocationType, offerType: offerType, isUpgraded: isUpgraded, type: type,
        environment: environment), payloadJSON: "{}", signedDate: signed))
}

func transactionPayload(
    otid: String = "1000", product: String = "pro.yearly", signed: Date?, expires: Date?,
    revoked: Date? = nil, revocationType: String? = nil, offerType: Int? = nil, isUpgraded: Bool? = nil,
    type: String = "Auto-Renewable Subscription", environment: AppStoreEnvironment = .sandbox
) -> TransactionPayload {
    var payload = TransactionPayload()
    payload.originalTransactionId = otid
    payload.transactionId = otid + "-" + String(Int(signed?.timeIntervalSince1970 ?? 0))
    payload.bundleId = "com.example"
    payload.productId = product
    payload.type = type
    payload.signedDate = signed
    payload.expiresDate = expires
    payload.revocationDate = revoked
    payload.revocationType = revocationType
    payload.offerType = offerType
    payload.isUpgraded = isUpgraded
    payload.environment = environment
    payload.inAppOwnershipType = "PURCHASED"
    return payload
}

func renewal(
    otid: String = "1000", signed: Date, autoRenew: Int? = 1, billingRetry: Bool? = nil, grace: Date? = nil
) -> VerifiedSignedData {
    var payload = RenewalInfoPayload()
    payload.originalTransactionId = otid
    payload.autoRenewStatus = autoRenew
    payload.isInBillingRetryPeriod = billingRetry
    payload.gracePeriodExpiresDate = grace
    payload.signedDate = signed
    payload.environment = .sandbox
    return .renewalInfo(Verified(payload: payload, payloadJSON: "{}", signedDate: signed))
}

func notification(
    uuid: String, type: String, subtype: String? = nil, signed: Date,
    transaction: TransactionPayload? = nil, renewal: VerifiedSignedData? = nil
) -> VerifiedSignedData {
    var payload = NotificationPayload()
    payload.notificationUUID = uuid
    payload.notificationType = type
    payload.subtype = subtype
    payload.signedDate = signed
    var data = NotificationPayload.AppData()
    data.bundleId = "com.example"
    data.environment = .sandbox
    payload.data = data
    var renewalInfo: Verified<RenewalInfoPayload>?
    if case .renewalInfo(let verified)? = renewal { renewalInfo = verified }
    return .notification(VerifiedNotification(
        notification: Verified(payload: payload, payloadJSON: "{}", signedDate: signed),
        transaction: transaction.map { Verified(payload: $0, payloadJSON: "{}", signedDate: $0.signedDate) },
        renewalInfo: renewalInfo))
}

extension EntitlementState {
    /// Applies each piece at its own signed date plus an hour (as a device importing fresh data would).
    func applyingAll(_ items: [VerifiedSignedData]) -> EntitlementState {
        items.reduce(self) { state, item in
            state.applying(verified: item, now: (item.signedDate ?? Reference.now).addingTimeInterval(3600)).state
        }
    }
}
