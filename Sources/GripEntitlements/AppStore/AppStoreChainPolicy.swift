import SwiftASN1
import X509

/// The App Store's chain rules on top of RFC 5280: exactly leaf → Apple WWDR intermediate → root, with the
/// intermediate carrying OID 1.2.840.113635.100.6.2.1 and the leaf carrying 1.2.840.113635.100.6.11.1.
///
/// Only the presence of each extension is checked (its value is an ASN.1 NULL), as Apple's own library does.
struct AppStoreChainPolicy: VerifierPolicy {
    /// Apple Worldwide Developer Relations intermediate marker.
    static let wwdrIntermediateOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
    /// App Store receipt-signing leaf marker.
    static let receiptSignerLeafOID: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]

    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [wwdrIntermediateOID, receiptSignerLeafOID]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "App Store chains have 3 certificates, this one has \(chain.count)")
        }
        guard chain[1].extensions[oid: Self.wwdrIntermediateOID] != nil else {
            return .failsToMeetPolicy(reason: "intermediate lacks the Apple WWDR OID 1.2.840.113635.100.6.2.1")
        }
        guard chain[0].extensions[oid: Self.receiptSignerLeafOID] != nil else {
            return .failsToMeetPolicy(reason: "leaf lacks the App Store receipt-signer OID 1.2.840.113635.100.6.11.1")
        }
        return .meetsPolicy
    }
}
