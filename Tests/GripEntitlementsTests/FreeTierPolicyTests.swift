import Foundation
@testable import GripEntitlements
import Testing

@Suite("Free tier")
struct FreeTierPolicyTests {
    let policy = FreeTierPolicy.standard
    let free = Access(tier: .free, source: .none, reason: "Free: no Pro subscription")
    let pro = Access(tier: .pro, source: .bypass, reason: "Pro: early access for everyone")

    @Test("the free plan keeps 5 recordings")
    func limit() { #expect(policy.storedRecordingLimit == 5) }

    @Test("the status line counts stored recordings against the limit", arguments: [
        (0, "Free: 0 of 5 recordings stored"),
        (3, "Free: 3 of 5 recordings stored"),
        (4, "Free: 4 of 5 recordings stored"),
        (5, "Free: 5 of 5 recordings stored"),
        (12, "Free: 12 recordings stored, the free plan keeps 5"),
    ])
    func reason(count: Int, text: String) {
        #expect(policy.reason(storedCount: count) == text)
    }

    @Test("the free plan warns with one slot left and when full, never before and never with Pro")
    func warning() {
        for count in 0...3 { #expect(policy.warning(storedCount: count, access: free) == nil, "\(count) stored") }
        #expect(policy.warning(storedCount: 4, access: free) == "One free recording left (4 of 5 stored): the next fills "
            + "the free plan, and the one after is refused. Pro keeps every recording and adds trends, comparisons and downloads.")
        #expect(policy.warning(storedCount: 5, access: free) == "The free plan is full (5 of 5 stored): new recordings are "
            + "refused until you delete one (`griptrack delete <id>`) or get Pro, which keeps every recording.")
        #expect(policy.warning(storedCount: 7, access: free)?.hasPrefix("The free plan is full (7 stored, it keeps 5): ") == true)
        for count in [0, 4, 5, 7] { #expect(policy.warning(storedCount: count, access: pro) == nil) }
        #expect(FreeTierPolicy(storedRecordingLimit: 0).warning(storedCount: 0, access: free) == nil)
    }

    @Test("a free user may start recordings 1 to 5 and is refused the 6th with what to do")
    func refusal() {
        for count in 0..<5 { #expect(policy.canStartRecording(storedCount: count, access: free) == .allowed) }
        let decision = policy.canStartRecording(storedCount: 5, access: free)
        #expect(decision == .refused("Free plan keeps 5 recordings (5 of 5 used). Delete one with `griptrack delete <id>` or upgrade to Pro."))
        #expect(!decision.isAllowed)
    }

    @Test("after losing Pro with more than 5 stored, the refusal says how many to delete")
    func overLimit() {
        #expect(policy.canStartRecording(storedCount: 12, access: free)
            == .refused("Free plan keeps 5 recordings (12 stored). Delete 8 with `griptrack delete <id>` or upgrade to Pro."))
    }

    @Test("Pro may always start a recording")
    func proUnlimited() {
        #expect(policy.canStartRecording(storedCount: 5, access: pro).isAllowed)
        #expect(policy.canStartRecording(storedCount: 10_000, access: pro).isAllowed)
    }
}
