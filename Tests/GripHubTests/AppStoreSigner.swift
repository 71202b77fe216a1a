import Crypto
import Foundation
import SwiftASN1
import X509

@testable import GripEntitlements

/// A three-certificate chain shaped like Apple's (root, WWDR-marked intermediate, receipt-signer leaf), made at
/// test time, and App Store V2 notifications signed with it as the App Store signs them (ES256, x5c). The same
/// construction as GripEntitlementsTests' `TestPKI`.
struct AppStoreSigner: Sendable {
    let rootDER: [UInt8]
    let intermediateDER: [UInt8]
    let leafDER: [UInt8]
    /// The leaf's private key as raw bytes (swift-crypto's key types are not `Sendable`).
    let leafKeyBytes: Data

    static let bundleId = "com.griptrack.app"

    init() throws {
        let rootKey = P256.Signing.PrivateKey()
        let intermediateKey = P256.Signing.PrivateKey()
        let leafKey = P256.Signing.PrivateKey()
        let from = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01
        let until = Date(timeIntervalSince1970: 2_208_988_800)  // 2040-01-01
        let rootName = try DistinguishedName { CommonName("griptrack hub test root") }
        let intermediateName = try DistinguishedName { CommonName("griptrack hub test WWDR") }
        let leafName = try DistinguishedName { CommonName("griptrack hub test signer") }
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
                Certificate.Extension(oid: AppStoreChainPolicy.receiptSignerLeafOID, critical: false, value: null)
            },
            issuerPrivateKey: .init(intermediateKey))
        func der(_ certificate: Certificate) throws -> [UInt8] {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
        rootDER = try der(root)
        intermediateDER = try der(intermediate)
        leafDER = try der(leaf)
        leafKeyBytes = leafKey.rawRepresentation
    }

    /// A verifier that trusts only this chain's root (Sandbox, the test bundle id).
    func verifier(bundleId: String = Self.bundleId) throws -> AppStoreVerifier {
        try AppStoreVerifier(
            configuration: try AppStoreVerifier.Configuration(
                bundleId: bundleId, environment: .sandbox, trustRoots: [try TrustRoot(derEncoded: rootDER)]))
    }

    /// A V2 notification as the App Store posts it: `{"signedPayload": …}` whose payload nests a signed
    /// transaction for subscription `otid`.
    func notificationBody(
        uuid: String = UUID().uuidString.lowercased(), type: String, subtype: String? = nil, signed: Date,
        otid: String = "2000", expires: Date?, revoked: Date? = nil, accountToken: UUID?, offerType: Int? = nil,
        bundleId: String = Self.bundleId
    ) throws -> String {
        let jws = try notification(
            uuid: uuid, type: type, subtype: subtype, signed: signed, otid: otid, expires: expires, revoked: revoked,
            accountToken: accountToken, offerType: offerType, bundleId: bundleId)
        return String(decoding: try JSONSerialization.data(withJSONObject: ["signedPayload": jws]), as: UTF8.self)
    }

    /// The signed notification alone.
    func notification(
        uuid: String, type: String, subtype: String? = nil, signed: Date, otid: String = "2000", expires: Date?,
        revoked: Date? = nil, accountToken: UUID?, offerType: Int? = nil, bundleId: String = Self.bundleId
    ) throws -> String {
        var transaction: [String: Any] = [
            "originalTransactionId": otid, "transactionId": "\(otid)-\(Int(signed.timeIntervalSince1970))",
            "bundleId": bundleId, "productId": "pro.yearly", "type": "Auto-Renewable Subscription",
            "purchaseDate": ms(signed), "signedDate": ms(signed), "environment": "Sandbox",
            "inAppOwnershipType": "PURCHASED",
        ]
        if let expires { transaction["expiresDate"] = ms(expires) }
        if let revoked {
            transaction["revocationDate"] = ms(revoked)
            transaction["revocationReason"] = 0
        }
        if let accountToken { transaction["appAccountToken"] = accountToken.uuidString.lowercased() }
        if let offerType {
            transaction["offerType"] = offerType
            transaction["offerIdentifier"] = "referral"
        }
        var notification: [String: Any] = [
            "notificationType": type, "notificationUUID": uuid, "version": "2.0", "signedDate": ms(signed),
            "data": [
                "bundleId": bundleId, "environment": "Sandbox", "signedTransactionInfo": try sign(transaction),
            ] as [String: Any],
        ]
        if let subtype { notification["subtype"] = subtype }
        return try sign(notification)
    }

    func sign(_ payload: [String: Any]) throws -> String {
        let header: [String: Any] = [
            "alg": "ES256", "typ": "JWT",
            "x5c": [leafDER, intermediateDER, rootDER].map { Data($0).base64EncodedString() },
        ]
        let headerPart = base64URL(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys]))
        let payloadPart = base64URL(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
        let leafKey = try P256.Signing.PrivateKey(rawRepresentation: leafKeyBytes)
        let signature = try leafKey.signature(for: Data((headerPart + "." + payloadPart).utf8))
        return headerPart + "." + payloadPart + "." + base64URL(signature.rawRepresentation)
    }

    private func ms(_ date: Date) -> Double { (date.timeIntervalSince1970 * 1000).rounded() }

    private func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
