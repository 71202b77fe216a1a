import Foundation
@testable import GripEntitlements
import Testing

private func d(_ iso: String) -> Date { Reference.date(iso.count == 10 ? iso + "T00:00:00Z" : iso) }

/// `resolve(_:now:)` for every source and boundary, one row each.
@Suite("Resolver")
struct ResolverTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var name: String
        var bypass = false
        var manualOverride: ManualOverride?
        var products: [String: String] = ["pro.yearly": "yearly", "pro.monthly": "monthly"]
        var data: [VerifiedSignedData] = []
        var now: Date
        var tier: Access.Tier
        var source: Access.Source
        var reason: String
        var expires: Date?
        var testDescription: String { name }

        var state: EntitlementState {
            EntitlementState(bypass: bypass, manualOverride: manualOverride, proProducts: products).applyingAll(data)
        }
    }

    /// A yearly subscription bought 2026-01-04, renewing 2027-01-04.
    static let yearly = transaction(product: "pro.yearly", signed: d("2026-01-04"), expires: d("2027-01-04"))
    /// A monthly period verified 2027-01-02, ending 2027-01-04.
    static let monthly = transaction(product: "pro.monthly", signed: d("2027-01-02"), expires: d("2027-01-04"))
    static let partner = ManualOverride(note: "PT partner", expires: d("2027-03-01"), grantedAt: d("2026-09-01"))

    static let rows: [Row] = [
        Row(name: "bypass makes everyone Pro", bypass: true, now: d("2026-06-01"),
            tier: .pro, source: .bypass, reason: "Pro: early access for everyone"),
        Row(name: "bypass outranks a refund and an ended override", bypass: true,
            manualOverride: ManualOverride(expires: d("2026-01-01"), grantedAt: d("2025-01-01")),
            data: [transaction(signed: d("2026-03-01"), expires: d("2027-01-04"), revoked: d("2026-03-01"))],
            now: d("2026-06-01"), tier: .pro, source: .bypass, reason: "Pro: early access for everyone"),
        Row(name: "an override with no note and no expiry", manualOverride: ManualOverride(grantedAt: d("2026-01-01")),
            now: d("2030-01-01"), tier: .pro, source: .manualOverride, reason: "Pro: complimentary"),
        Row(name: "an override with a note and an expiry", manualOverride: partner, now: d("2027-02-01"),
            tier: .pro, source: .manualOverride, reason: "Pro: complimentary — PT partner, until 2027-03-01", expires: d("2027-03-01")),
        Row(name: "an override ending exactly now counts as none", manualOverride: partner, now: d("2027-03-01"),
            tier: .free, source: .none, reason: "Free: complimentary access ended 2027-03-01"),
        Row(name: "an override ending one second after now still grants", manualOverride: partner,
            now: d("2027-03-01").addingTimeInterval(-1),
            tier: .pro, source: .manualOverride, reason: "Pro: complimentary — PT partner, until 2027-03-01", expires: d("2027-03-01")),
        Row(name: "an override outranks an active subscription", manualOverride: partner,
            data: [yearly, renewal(signed: d("2026-01-04"))], now: d("2026-06-01"),
            tier: .pro, source: .manualOverride, reason: "Pro: complimentary — PT partner, until 2027-03-01", expires: d("2027-03-01")),
        Row(name: "an active yearly subscription that will renew", data: [yearly, renewal(signed: d("2026-01-04"))],
            now: d("2026-06-01"), tier: .pro, source: .subscription, reason: "Pro: App Store yearly, renews 2027-01-04", expires: d("2027-01-04")),
        Row(name: "an active subscription with renewal turned off", data: [yearly, renewal(signed: d("2026-01-04"), autoRenew: 0)],
            now: d("2026-06-01"), tier: .pro, source: .subscription, reason: "Pro: App Store yearly, ends 2027-01-04", expires: d("2027-01-04")),
        Row(name: "an active subscription without renewal info", data: [yearly], now: d("2026-06-01"),
            tier: .pro, source: .subscription, reason: "Pro: App Store yearly, until 2027-01-04", expires: d("2027-01-04")),
        Row(name: "expiry exactly at now is Free", data: [yearly, renewal(signed: d("2026-01-04"))], now: d("2027-01-04"),
            tier: .free, source: .none, reason: "Free: App Store yearly expired 2027-01-04"),
        Row(name: "expiry one millisecond after now is Pro", data: [yearly], now: d("2027-01-04").addingTimeInterval(-0.001),
            tier: .pro, source: .subscription, reason: "Pro: App Store yearly, until 2027-01-04", expires: d("2027-01-04")),
        Row(name: "a free trial is Pro",
            data: [transaction(signed: d("2026-01-04"), expires: d("2027-01-04"), offerType: 1), renewal(signed: d("2026-01-04"))],
            now: d("2026-01-05"), tier: .pro, source: .subscription,
            reason: "Pro: App Store yearly (introductory offer), renews 2027-01-04", expires: d("2027-01-04")),
        Row(name: "billing grace keeps Pro until gracePeriodExpiresDate",
            data: [yearly, renewal(signed: d("2027-01-05"), billingRetry: true, grace: d("2027-01-20"))], now: d("2027-01-15"),
            tier: .pro, source: .billingGracePeriod,
            reason: "Pro: App Store yearly, payment failed, billing grace until 2027-01-20", expires: d("2027-01-20")),
        Row(name: "billing grace ending exactly now is Free",
            data: [yearly, renewal(signed: d("2027-01-05"), billingRetry: true, grace: d("2027-01-20"))], now: d("2027-01-20"),
            tier: .free, source: .none, reason: "Free: App Store yearly payment failed on 2027-01-04; the App Store is retrying"),
        Row(name: "billing retry without grace is Free at once",
            data: [yearly, renewal(signed: d("2027-01-05"), billingRetry: true)], now: d("2027-01-05T02:00:00Z"),
            tier: .free, source: .none, reason: "Free: App Store yearly payment failed on 2027-01-04; the App Store is retrying"),
        Row(name: "offline grace keeps Pro 7 days after the last verification",
            data: [monthly, renewal(signed: d("2027-01-02"))], now: d("2027-01-06"),
            tier: .pro, source: .offlineGrace,
            reason: "Pro: App Store monthly, offline grace until 2027-01-09 (last verified 2027-01-02)", expires: d("2027-01-09")),
        Row(name: "offline grace ending exactly now is Free",
            data: [monthly, renewal(signed: d("2027-01-02"))], now: d("2027-01-09"),
            tier: .free, source: .none, reason: "Free: App Store monthly expired 2027-01-04"),
        Row(name: "no offline grace once renewal was turned off",
            data: [monthly, renewal(signed: d("2027-01-02"), autoRenew: 0)], now: d("2027-01-06"),
            tier: .free, source: .none, reason: "Free: App Store monthly expired 2027-01-04"),
        Row(name: "newer data showing the period expired ends the offline grace",
            data: [monthly, renewal(signed: d("2027-01-02")), renewal(signed: d("2027-01-05"))], now: d("2027-01-06"),
            tier: .free, source: .none, reason: "Free: App Store monthly expired 2027-01-04"),
        Row(name: "an active period also carries the offline grace past its expiry",
            data: [monthly, renewal(signed: d("2027-01-02"))], now: d("2027-01-03"),
            tier: .pro, source: .subscription, reason: "Pro: App Store monthly, renews 2027-01-04", expires: d("2027-01-09")),
        Row(name: "a refund is Free at once",
            data: [transaction(signed: d("2026-03-01"), expires: d("2027-01-04"), revoked: d("2026-03-01"), revocationType: "REFUND_FULL")],
            now: d("2026-03-01T02:00:00Z"), tier: .free, source: .none, reason: "Free: App Store yearly refunded or revoked on 2026-03-01"),
        Row(name: "a family-sharing revocation is Free",
            data: [transaction(signed: d("2026-03-01"), expires: d("2027-01-04"), revoked: d("2026-03-01"), revocationType: "FAMILY_REVOKE")],
            now: d("2026-06-01"), tier: .free, source: .none, reason: "Free: App Store yearly family sharing ended on 2026-03-01"),
        Row(name: "a product outside the Pro set grants nothing",
            data: [transaction(product: "tip.jar", signed: d("2026-01-04"), expires: d("2027-01-04"))], now: d("2026-06-01"),
            tier: .free, source: .none, reason: "Free: no Pro subscription"),
        Row(name: "an upgraded-away transaction grants nothing",
            data: [transaction(signed: d("2026-01-04"), expires: d("2027-01-04"), isUpgraded: true)], now: d("2026-06-01"),
            tier: .free, source: .none, reason: "Free: no Pro subscription"),
        Row(name: "a purchase that is not a subscription grants nothing",
            data: [transaction(signed: d("2026-01-04"), expires: d("2027-01-04"), type: "Non-Consumable")], now: d("2026-06-01"),
            tier: .free, source: .none, reason: "Free: no Pro subscription"),
        Row(name: "renewal info alone grants nothing",
            data: [renewal(signed: d("2027-01-05"), billingRetry: true, grace: d("2027-01-20"))], now: d("2027-01-06"),
            tier: .free, source: .none, reason: "Free: no Pro subscription"),
        Row(name: "with an empty product set every subscription is Pro", products: [:], data: [yearly], now: d("2026-06-01"),
            tier: .pro, source: .subscription, reason: "Pro: App Store subscription, until 2027-01-04", expires: d("2027-01-04")),
        Row(name: "any active subscription among several grants",
            data: [transaction(otid: "1", signed: d("2025-01-04"), expires: d("2026-01-04")), transaction(otid: "2", product: "pro.monthly", signed: d("2026-05-20"), expires: d("2026-06-20"))],
            now: d("2026-06-01"), tier: .pro, source: .subscription, reason: "Pro: App Store monthly, until 2026-06-20", expires: d("2026-06-20")),
        Row(name: "now never goes below the newest verified signedDate (clock rollback)",
            data: [monthly, renewal(signed: d("2027-01-02")), notification(uuid: "t", type: "TEST", signed: d("2027-01-12"))],
            now: d("2027-01-03"), tier: .free, source: .none, reason: "Free: App Store monthly expired 2027-01-04"),
        Row(name: "nothing at all is Free", now: d("2026-06-01"), tier: .free, source: .none, reason: "Free: no Pro subscription"),
    ]

    @Test("resolve gives the expected tier, source, reason and end", arguments: rows)
    func row(_ row: Row) {
        let access = resolve(row.state, now: row.now)
        #expect(access.tier == row.tier)
        #expect(access.source == row.source)
        #expect(access.reason == row.reason)
        #expect(access.expires == row.expires)
        #expect(access.isPro == (row.tier == .pro))
    }

    @Test("no verification failure changes any row's answer", arguments: rows)
    func failuresChangeNothing(_ row: Row) {
        let state = row.state
        for failure in [
            VerificationFailure(.chain, "OCSP responder unreachable", isRetryable: true),
            VerificationFailure(.signature, "the ES256 signature does not match"),
        ] {
            let after = state.recording(failure: failure, now: row.now)
            #expect(resolve(after, now: row.now) == resolve(state, now: row.now))
            #expect(after.lastFailure?.category == failure.category)
            #expect(after.subscriptions == state.subscriptions)
        }
    }

    @Test("seed plan: bypass on, then bypass off with overrides for early users, then paid")
    func seedPlanPhases() {
        struct Step {
            var phase: String
            var user: String
            var now: Date
            var reason: String
        }
        // Phase 1: early access, everyone Pro. Phase 2 (from 2026-09-01): bypass off; early users get overrides.
        // Phase 3 (from 2027-01-01): paid plans.
        let launch = EntitlementState(bypass: true, proProducts: ["pro.yearly": "yearly"])
        func user(_ name: String, phase: Int) -> EntitlementState {
            guard phase > 1 else { return launch }
            var state = launch
            state.bypass = false
            switch name {
            case "alice": state.manualOverride = ManualOverride(note: "early access thank-you", expires: d("2027-03-01"), grantedAt: d("2026-09-01"))
            case "bob": state.manualOverride = ManualOverride(note: "founding member", grantedAt: d("2026-09-01"))
            default: break
            }
            if phase == 3, name == "alice" || name == "carol" {
                state = state.applyingAll([transaction(signed: d("2027-01-10"), expires: d("2028-01-10")), renewal(signed: d("2027-01-10"))])
            }
            return state
        }
        let steps: [(Int, Step)] = [
            (1, Step(phase: "bypass on", user: "alice", now: d("2026-06-01"), reason: "Pro: early access for everyone")),
            (1, Step(phase: "bypass on", user: "carol", now: d("2026-06-01"), reason: "Pro: early access for everyone")),
            (2, Step(phase: "overrides", user: "alice", now: d("2026-10-01"), reason: "Pro: complimentary — early access thank-you, until 2027-03-01")),
            (2, Step(phase: "overrides", user: "bob", now: d("2026-10-01"), reason: "Pro: complimentary — founding member")),
            (2, Step(phase: "overrides", user: "carol", now: d("2026-10-01"), reason: "Free: no Pro subscription")),
            (2, Step(phase: "overrides", user: "alice", now: d("2027-03-01"), reason: "Free: complimentary access ended 2027-03-01")),
            (3, Step(phase: "paid", user: "alice", now: d("2027-02-01"), reason: "Pro: complimentary — early access thank-you, until 2027-03-01")),
            (3, Step(phase: "paid", user: "alice", now: d("2027-03-01"), reason: "Pro: App Store yearly, renews 2028-01-10")),
            (3, Step(phase: "paid", user: "bob", now: d("2027-03-01"), reason: "Pro: complimentary — founding member")),
            (3, Step(phase: "paid", user: "carol", now: d("2027-03-01"), reason: "Pro: App Store yearly, renews 2028-01-10")),
        ]
        for (phase, step) in steps {
            let access = resolve(user(step.user, phase: phase), now: step.now)
            #expect(access.reason == step.reason, "\(step.phase), \(step.user), \(step.now)")
        }
    }
}

/// Replay protection, deduplication, clamping and the import-age gate of `EntitlementState.applying`.
@Suite("Applying verified data")
struct ApplyingTests {
    let base = EntitlementState(proProducts: ["pro.yearly": "yearly"])

    @Test("an old pre-refund transaction cannot undo a revocation; a newer reversal can")
    func replayCannotUndoRevocation() {
        let bought = transaction(signed: d("2026-01-04"), expires: d("2027-01-04"))
        let refunded = transaction(signed: d("2026-03-01"), expires: d("2027-01-04"), revoked: d("2026-03-01"), revocationType: "REFUND_FULL")
        let state = base.applyingAll([bought, refunded])
        let now = d("2026-03-02")
        #expect(resolve(state, now: now).tier == .free)

        let replay = state.applying(verified: bought, now: now)
        #expect(replay.events.map(\.disposition) == [.replayIgnored])
        #expect(resolve(replay.state, now: now).tier == .free)
        let same = state.applying(verified: refunded, now: now)
        #expect(same.events.map(\.disposition) == [.replayIgnored], "an equal signedDate is not newer")

        let reversed = transaction(signed: d("2026-03-05"), expires: d("2027-01-04"))
        let after = state.applying(verified: reversed, now: d("2026-03-05T01:00:00Z"))
        #expect(after.events.map(\.disposition) == [.applied])
        #expect(resolve(after.state, now: d("2026-03-06")).source == .subscription)
    }

    @Test("transactions and renewal infos are ordered separately per subscription")
    func kindsOrderedSeparately() {
        let state = base.applyingAll([
            transaction(signed: d("2026-01-04T00:00:10Z"), expires: d("2027-01-04")),
            renewal(signed: d("2026-01-04T00:00:05Z")),
        ])
        #expect(state.subscriptions["1000"]?.renewalInfo != nil, "renewal info signed before the transaction still applies")
        #expect(state.subscriptions["1000"]?.lastVerified == d("2026-01-04T00:00:10Z"))
    }

    @Test("a repeated notificationUUID is a no-op")
    func duplicateNotification() {
        let first = notification(
            uuid: "n-1", type: "SUBSCRIBED", signed: d("2026-01-04"),
            transaction: transactionPayload(signed: d("2026-01-04"), expires: d("2027-01-04")))
        let once = base.applying(verified: first, now: d("2026-01-04T01:00:00Z"))
        #expect(once.events.map(\.disposition) == [.applied, .applied])
        #expect(once.state.processedNotificationUUIDs == ["n-1"])
        let twice = once.state.applying(verified: first, now: d("2026-02-01"))
        #expect(twice.events.map(\.disposition) == [.duplicateNotification])
        #expect(twice.state == once.state)
    }

    @Test("applying raises the clock floor to the newest signedDate and records the verification time")
    func clamp() {
        let result = base.applying(verified: notification(uuid: "t", type: "TEST", signed: d("2027-01-12")), now: d("2020-01-01"))
        #expect(result.state.newestSignedDate == d("2027-01-12"))
        #expect(result.state.lastSuccessfulVerification == d("2027-01-12"))
        #expect(result.state.clampedNow(d("2026-01-01")) == d("2027-01-12"))
        #expect(result.state.clampedNow(d("2028-01-01")) == d("2028-01-01"))
    }

    @Test("data signed 7 days or more before now cannot grant, but can take access away")
    func tooOldToGrant() {
        let now = d("2026-06-01")
        let weekOld = transaction(signed: now.addingTimeInterval(-EntitlementPolicy.offlineGrace), expires: d("2027-01-04"))
        let stale = base.applying(verified: weekOld, now: now)
        #expect(stale.events.map(\.disposition) == [.tooOldToGrant])
        #expect(resolve(stale.state, now: now).tier == .free)
        #expect(weekOld.isTooOldToGrant(now: now))

        let fresh = transaction(signed: now.addingTimeInterval(-EntitlementPolicy.offlineGrace + 1), expires: d("2027-01-04"))
        #expect(!fresh.isTooOldToGrant(now: now))
        let granted = base.applying(verified: fresh, now: now)
        #expect(granted.events.map(\.disposition) == [.applied])
        #expect(resolve(granted.state, now: now).isPro)

        let oldRefund = transaction(signed: d("2026-05-24T12:00:00Z"), expires: d("2027-01-04"), revoked: d("2026-05-24T12:00:00Z"))
        let olderPurchase = base.applyingAll([transaction(signed: d("2026-05-24"), expires: d("2027-01-04"))])
        let revoked = olderPurchase.applying(verified: oldRefund, now: now)
        #expect(revoked.events.map(\.disposition) == [.applied])
        #expect(resolve(revoked.state, now: now).tier == .free)
    }

    @Test("data without an id, without a signedDate, or locally signed is ignored")
    func ignored() {
        var noId = transactionPayload(signed: d("2026-01-04"), expires: d("2027-01-04"))
        noId.originalTransactionId = nil
        let noDate = transactionPayload(signed: nil, expires: d("2027-01-04"))
        let local = transactionPayload(signed: d("2026-01-04"), expires: d("2027-01-04"), environment: .localTesting)
        let now = d("2026-01-05")
        for (payload, reason) in [
            (noId, "no originalTransactionId"),
            (noDate, "no signedDate, so it cannot be ordered against other data"),
            (local, "Xcode/LocalTesting data never grants access"),
        ] {
            let result = base.applying(verified: .transaction(Verified(payload: payload, payloadJSON: "{}", signedDate: payload.signedDate)), now: now)
            #expect(result.events.map(\.disposition) == [.ignored(reason)])
            #expect(result.state.subscriptions.isEmpty)
        }
    }

    @Test("a retryable failure keeps a cached Pro inside the offline grace; a permanent one upgrades nothing")
    func failures() {
        let cached = base.applyingAll([transaction(signed: d("2027-01-02"), expires: d("2027-01-04")), renewal(signed: d("2027-01-02"))])
        let now = d("2027-01-06")
        let retry = cached.recording(failure: VerificationFailure(.chain, "signedDate ahead of clock", isRetryable: true), now: now)
        #expect(resolve(retry, now: now).source == .offlineGrace)
        #expect(retry.lastFailure == EntitlementState.RecordedFailure(category: .chain, isRetryable: true, detail: "signedDate ahead of clock", at: now))

        let permanent = base.recording(failure: VerificationFailure(.signature, "bad signature"), now: now)
        #expect(resolve(permanent, now: now).tier == .free)
    }

    @Test("the state survives a JSON round trip for storage")
    func codable() throws {
        var state = base.applyingAll([
            notification(uuid: "n-1", type: "SUBSCRIBED", signed: d("2026-01-04"),
                         transaction: transactionPayload(signed: d("2026-01-04"), expires: d("2027-01-04"))),
            renewal(signed: d("2026-01-04T00:00:00.5Z"), billingRetry: false),
        ])
        state.manualOverride = ManualOverride(note: "PT partner", expires: d("2027-03-01"), grantedAt: d("2026-09-01"))
        state = state.recording(failure: VerificationFailure(.format, "x"), now: d("2026-02-01"))
        let decoded = try EntitlementState(jsonData: state.jsonData())
        #expect(decoded == state)
        #expect(resolve(decoded, now: d("2026-06-01")) == resolve(state, now: d("2026-06-01")))
    }
}
