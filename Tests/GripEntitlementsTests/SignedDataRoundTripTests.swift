import Foundation
@testable import GripEntitlements
import Testing

/// Payloads with real content (the upstream `models/` JSON, environment rewritten to Sandbox) signed by a minted
/// App Store-shaped chain, verified, applied and resolved: the path `pro import` and the daemon take.
@Suite("Signed data round trip")
struct SignedDataRoundTripTests {
    let pki: TestPKI
    let verifier: AppStoreVerifier

    init() throws {
        pki = try TestPKI()
        verifier = try makeVerifier(appAppleId: 41234, roots: [pki.trustRoot])
    }

    static func model(_ name: String) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: Vectors.url("models/\(name).json")))
        guard var dictionary = object as? [String: Any] else { throw CocoaError(.coderReadCorrupt) }
        if dictionary["environment"] != nil { dictionary["environment"] = "Sandbox" }
        for key in ["data", "summary"] {
            if var nested = dictionary[key] as? [String: Any] {
                nested["environment"] = "Sandbox"
                dictionary[key] = nested
            }
        }
        return dictionary
    }

    /// The models transaction as a live subscription: not revoked, not upgraded, dated around `signed`.
    static func liveTransaction(signed: Date, expires: Date) throws -> [String: Any] {
        var payload = try model("signedTransaction")
        payload["revocationDate"] = nil
        payload["revocationReason"] = nil
        payload["isUpgraded"] = false
        payload["signedDate"] = ms(signed)
        payload["purchaseDate"] = ms(signed)
        payload["expiresDate"] = ms(expires)
        return payload
    }

    static func renewalInfo(signed: Date) throws -> [String: Any] {
        var payload = try model("signedRenewalInfo")
        payload["isInBillingRetryPeriod"] = false
        payload["gracePeriodExpiresDate"] = nil
        payload["signedDate"] = ms(signed)
        return payload
    }

    func subscribedNotification(uuid: String, type: String, signed: Date, transaction: [String: Any], renewal: [String: Any]) throws -> String {
        var payload = try Self.model("signedNotification")
        payload["notificationUUID"] = uuid
        payload["notificationType"] = type
        payload["subtype"] = nil
        payload["signedDate"] = ms(signed)
        var data = payload["data"] as? [String: Any] ?? [:]
        data["signedTransactionInfo"] = try pki.sign(transaction)
        data["signedRenewalInfo"] = try pki.sign(renewal)
        payload["data"] = data
        return try pki.sign(payload)
    }

    @Test("every field of the models transaction decodes, dates from milliseconds")
    func transactionFields() async throws {
        let jws = try pki.sign(Self.model("signedTransactionWithRevocation"))
        let verified = try await verifier.verifyTransaction(jws, now: Reference.now)
        let payload = verified.payload
        #expect(payload.originalTransactionId == "12345")
        #expect(payload.transactionId == "23456")
        #expect(payload.productId == "com.example.product")
        #expect(payload.type == "Auto-Renewable Subscription" && payload.isSubscription)
        #expect(payload.expiresDate == Date(timeIntervalSince1970: 1_698_149_000))
        #expect(payload.revocationDate == Date(timeIntervalSince1970: 1_698_148_950))
        #expect(payload.revocationType == "REFUND_PRORATED" && payload.revocationPercentage == 50000)
        #expect(payload.revocationReason == 1 && payload.isUpgraded == true && payload.isIntroductoryOffer)
        #expect(payload.appAccountToken == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(payload.price == 10990 && payload.currency == "USD" && payload.environment == .sandbox)
        #expect(verified.signedDate == Date(timeIntervalSince1970: 1_698_148_900))
    }

    @Test("renewal info and a summary notification verify and decode")
    func renewalAndSummary() async throws {
        let renewal = try await verifier.verifyRenewalInfo(pki.sign(Self.model("signedRenewalInfo")), now: Reference.now)
        #expect(renewal.payload.isInBillingRetryPeriod == true)
        #expect(renewal.payload.gracePeriodExpiresDate == Date(timeIntervalSince1970: 1_698_148_900))
        #expect(renewal.payload.expirationIntent == 1 && renewal.payload.autoRenewProductId == "com.example.product.2")
        let summary = try await verifier.verifyNotification(pki.sign(Self.model("signedSummaryNotification")), now: Reference.now)
        #expect(summary.notification.payload.summary?.succeededCount == 5)
        #expect(summary.transaction == nil)
    }

    @Test("a notification's nested transaction and renewal info are verified too")
    func nestedVerified() async throws {
        let signed = Reference.now
        let jws = try subscribedNotification(
            uuid: "n-1", type: "SUBSCRIBED", signed: signed,
            transaction: Self.liveTransaction(signed: signed, expires: signed.addingTimeInterval(365 * Reference.day)),
            renewal: Self.renewalInfo(signed: signed))
        let verified = try await verifier.verifyNotification(jws, now: signed)
        #expect(verified.transaction?.payload.originalTransactionId == "12345")
        #expect(verified.renewalInfo?.payload.autoRenewStatus == 1)

        // A nested transaction for another app spoils the whole notification.
        var foreign = try Self.liveTransaction(signed: signed, expires: signed.addingTimeInterval(Reference.day))
        foreign["bundleId"] = "com.example.other"
        let bad = try subscribedNotification(uuid: "n-2", type: "SUBSCRIBED", signed: signed, transaction: foreign, renewal: Self.renewalInfo(signed: signed))
        await #expect(throws: VerificationFailure.self) { _ = try await verifier.verifyNotification(bad, now: signed) }
        do {
            _ = try await verifier.verifyNotification(bad, now: signed)
        } catch {
            #expect(error.category == .appIdentifier)
            #expect(error.detail == "data.signedTransactionInfo: bundle id \"com.example.other\", expected \"com.example\"")
        }
    }

    @Test("a nested JWS with a broken signature is a signature failure of the notification")
    func nestedTampered() async throws {
        var payload = try Self.model("signedNotification")
        var data = payload["data"] as? [String: Any] ?? [:]
        let nested = try pki.sign(Self.liveTransaction(signed: Reference.now, expires: Reference.now.addingTimeInterval(Reference.day)))
        let parts = nested.split(separator: ".")
        data["signedTransactionInfo"] = "\(parts[0]).\(parts[1]).\(String(parts[2].reversed()))"
        data["signedRenewalInfo"] = nil
        payload["data"] = data
        let jws = try pki.sign(payload)
        do {
            _ = try await verifier.verifyNotification(jws, now: Reference.now)
            Issue.record("a tampered nested transaction was accepted")
        } catch {
            #expect(error.category == .signature)
            #expect(error.detail.hasPrefix("data.signedTransactionInfo: "))
        }
    }

    @Test("signature, chain and clock failures are classified", arguments: [
        "der-signature", "wrong-leaf-oid", "untrusted", "future", "near-future", "production-app-id",
    ])
    func classified(_ scenario: String) async throws {
        let payload = try Self.liveTransaction(signed: Reference.now, expires: Reference.now.addingTimeInterval(Reference.day))
        var jws = try pki.sign(payload)
        var verifier = self.verifier
        var kind = SignedDataKind.transaction
        let expected: (VerificationFailure.Category, Bool)?
        switch scenario {
        case "der-signature":
            jws = try pki.sign(payload, derSignature: true)
            expected = (.signature, false)
        case "wrong-leaf-oid":
            let other = try TestPKI(leafOID: [1, 2, 840, 113635, 100, 6, 11, 2])
            jws = try other.sign(payload)
            verifier = try makeVerifier(roots: [other.trustRoot])
            expected = (.chain, false)
        case "untrusted":
            verifier = try makeVerifier(roots: [TrustRoot.appleRootCAG3()])
            expected = (.chain, false)
        case "future":
            var future = payload
            future["signedDate"] = ms(Reference.now.addingTimeInterval(AppStoreVerifier.maxClockSkew + 1))
            jws = try pki.sign(future)
            expected = (.chain, true)
        case "near-future":
            var future = payload
            future["signedDate"] = ms(Reference.now.addingTimeInterval(AppStoreVerifier.maxClockSkew))
            jws = try pki.sign(future)
            expected = nil
        default:  // production-app-id
            var notification = try Self.model("signedNotification")
            var data = notification["data"] as? [String: Any] ?? [:]
            data["environment"] = "Production"
            data["signedTransactionInfo"] = nil
            data["signedRenewalInfo"] = nil
            notification["data"] = data
            jws = try pki.sign(notification)
            verifier = try makeVerifier(environment: .production, appAppleId: 99, roots: [pki.trustRoot])
            kind = .notification
            expected = (.appIdentifier, false)
        }
        do {
            if kind == .notification {
                _ = try await verifier.verifyNotification(jws, now: Reference.now)
            } else {
                _ = try await verifier.verifyTransaction(jws, now: Reference.now)
            }
            #expect(expected == nil, "accepted, expected \(String(describing: expected))")
        } catch {
            #expect(expected?.0 == error.category, "\(error)")
            #expect(expected?.1 == error.isRetryable, "\(error)")
        }
    }

    @Test("subscribe, refund, replays, refund reversed: access follows the newest signed data")
    func lifecycle() async throws {
        let t0 = Reference.now
        let yearEnd = t0.addingTimeInterval(365 * Reference.day)
        var state = EntitlementState(proProducts: ["com.example.product": "yearly"])

        let purchase = try Self.liveTransaction(signed: t0, expires: yearEnd)
        let subscribed = try subscribedNotification(
            uuid: "n-sub", type: "SUBSCRIBED", signed: t0, transaction: purchase, renewal: Self.renewalInfo(signed: t0))
        state = state.applying(verified: .notification(try await verifier.verifyNotification(subscribed, now: t0)), now: t0).state
        #expect(resolve(state, now: t0.addingTimeInterval(Reference.day)).reason == "Pro: App Store yearly (introductory offer), renews 2026-11-01")

        let t1 = t0.addingTimeInterval(10 * Reference.day)
        var refunded = purchase
        refunded["signedDate"] = ms(t1)
        refunded["revocationDate"] = ms(t1)
        refunded["revocationType"] = "REFUND_FULL"
        let refund = try subscribedNotification(
            uuid: "n-refund", type: "REFUND", signed: t1, transaction: refunded, renewal: Self.renewalInfo(signed: t1))
        state = state.applying(verified: .notification(try await verifier.verifyNotification(refund, now: t1)), now: t1).state
        let afterRefund = resolve(state, now: t1)
        #expect(afterRefund.tier == .free)
        #expect(afterRefund.reason == "Free: App Store yearly refunded or revoked on 2025-11-11")

        // Replaying the first notification is a no-op; replaying its nested pre-refund transaction is ignored.
        let replayed = state.applying(verified: .notification(try await verifier.verifyNotification(subscribed, now: t1)), now: t1)
        #expect(replayed.events.map(\.disposition) == [.duplicateNotification])
        #expect(replayed.state == state)
        let oldTransaction = try await verifier.verifyTransaction(pki.sign(purchase), now: t1)
        let replay = state.applying(verified: .transaction(oldTransaction), now: t1)
        #expect(replay.events.map(\.disposition) == [.replayIgnored])
        #expect(resolve(replay.state, now: t1).tier == .free)

        let t2 = t1.addingTimeInterval(Reference.day)
        var reinstated = purchase
        reinstated["signedDate"] = ms(t2)
        let reversed = try subscribedNotification(
            uuid: "n-reversed", type: "REFUND_REVERSED", signed: t2, transaction: reinstated, renewal: Self.renewalInfo(signed: t2))
        state = state.applying(verified: .notification(try await verifier.verifyNotification(reversed, now: t2)), now: t2).state
        #expect(resolve(state, now: t2).source == .subscription)
        #expect(state.processedNotificationUUIDs == ["n-sub", "n-refund", "n-reversed"])
    }
}
