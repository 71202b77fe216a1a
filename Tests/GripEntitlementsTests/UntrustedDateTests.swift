import Foundation
@testable import GripEntitlements
import Testing

/// Nothing an unverified payload says reaches a computation before the signature and chain hold, and no date in
/// signed data can trap (docs/entitlements.md, "Order of checks").
@Suite("Dates in signed data")
struct UntrustedDateTests {
    let pki: TestPKI
    let verifier: AppStoreVerifier

    init() throws {
        pki = try TestPKI()
        verifier = try makeVerifier(roots: [pki.trustRoot])
    }

    func notification(signedDate: Any) throws -> String {
        try pki.sign([
            "notificationType": "SUBSCRIBED", "notificationUUID": UUID().uuidString, "version": "2.0",
            "signedDate": signedDate,
            "data": ["bundleId": "com.example", "appAppleId": 1234, "environment": "Sandbox"],
        ])
    }

    @Test("the year −1199 repro on an untrusted chain is a chain failure, through every entry point")
    func negativeSignedDateOnUntrustedChain() async throws {
        let jws = try Vectors.text("repro/crash-negative-signeddate.jws")
        for kind in [nil, SignedDataKind.notification, .transaction, .renewalInfo] {
            do {
                _ = try await verifier.verify(jws, as: kind, now: Reference.now)
                Issue.record("accepted as \(String(describing: kind))")
            } catch {
                #expect(error.category == .chain, "\(error)")
                #expect(!error.isRetryable)
            }
        }
    }

    @Test("a correctly signed date before 2000 or past 2100 is a format failure naming the field", arguments: [
        -1e14, -1e300, 1e300, 9.3e21, 0, 4_200_000_000_000,
    ])
    func outOfRangeSignedDate(milliseconds: Double) async throws {
        let jws = try notification(signedDate: milliseconds)
        do {
            _ = try await verifier.verifyNotification(jws, now: Reference.now)
            Issue.record("accepted signedDate \(milliseconds)")
        } catch {
            #expect(error.category == .format, "\(error)")
            #expect(error.detail.contains("signedDate"), "\(error.detail)")
            #expect(error.detail.contains("between 2000 and 2100"), "\(error.detail)")
        }
    }

    @Test("a bad signature on data dated a day ahead is a signature failure, not 'try again later'")
    func futureDateWithBadSignature() async throws {
        let jws = try notification(signedDate: ms(Reference.now.addingTimeInterval(86_400)))
        var parts = jws.split(separator: ".").map(String.init)
        var signature = Array(parts[2])
        signature[5] = signature[5] == "A" ? "B" : "A"
        parts[2] = String(signature)
        do {
            _ = try await verifier.verifyNotification(parts.joined(separator: "."), now: Reference.now)
            Issue.record("accepted")
        } catch {
            #expect(error.category == .signature, "\(error)")
            #expect(!error.isRetryable)
        }
        // Signed correctly, the same date is the retryable clock failure.
        do {
            _ = try await verifier.verifyNotification(jws, now: Reference.now)
            Issue.record("accepted")
        } catch {
            #expect(error.category == .chain && error.isRetryable, "\(error)")
        }
    }

    @Test("a device clock outside 2000–2100, or before the certificates, is a retryable clock failure")
    func insaneDeviceClock() async throws {
        let jws = try notification(signedDate: ms(Reference.now))
        for now in [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -1e15), Date(timeIntervalSince1970: 1e15),
                    Reference.date("2019-06-01T00:00:00Z")] {
            do {
                _ = try await verifier.verifyNotification(jws, now: now)
                Issue.record("accepted at \(now)")
            } catch {
                #expect(error.category == .chain && error.isRetryable, "\(error)")
                #expect(error.detail.contains("check the system time"), "\(error.detail)")
            }
        }
    }

    @Test("an alg with a newline is quoted in the refusal, so it cannot forge a log line")
    func algIsQuoted() async throws {
        let jws = try pki.sign(["signedDate": ms(Reference.now)], alg: "ES256\nFAKE log line")
        do {
            _ = try await verifier.verify(jws, now: Reference.now)
            Issue.record("accepted")
        } catch {
            #expect(error.category == .format)
            #expect(!error.detail.contains("\n"), "\(error.detail)")
            #expect(error.detail.contains(#"\u{A}"#), "\(error.detail)")
        }
    }
}
