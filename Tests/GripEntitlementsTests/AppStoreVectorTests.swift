import Foundation
@testable import GripEntitlements
import Testing
import X509

/// Every JWS vector of `Vectors/expectations.json` through the verifier, at a fixed reference time.
@Suite("App Store vectors")
struct AppStoreVectorTests {
    enum Expect: Equatable, CustomStringConvertible {
        case valid
        case failure(VerificationFailure.Category)
        var description: String {
            switch self {
            case .valid: "VALID"
            case .failure(let category): "failure(\(category))"
            }
        }
    }

    struct Row: CustomTestStringConvertible, Sendable {
        var file: String
        var kind: SignedDataKind
        var root = "test"
        var bundleId = "com.example"
        var appAppleId: Int64? = 1234
        var environment = AppStoreEnvironment.sandbox
        var expect: Expect
        var testDescription: String { "\(file) as \(kind), \(environment), root \(root) → \(expect)" }
    }

    /// One row per `jws_vectors` entry of expectations.json (the 2042 expiry row is
    /// `testNotificationChainExpiresIn2042` below, because the verifier validates at signedDate).
    static let rows: [Row] = [
        Row(file: "mock_signed_data/testNotification", kind: .notification, expect: .valid),
        Row(file: "mock_signed_data/testNotification", kind: .notification, environment: .production, expect: .failure(.environment)),
        Row(file: "mock_signed_data/testNotification", kind: .notification, root: "apple_root_ca_g3", expect: .failure(.chain)),
        Row(file: "mock_signed_data/testNotification", kind: .transaction, appAppleId: 1235, expect: .failure(.appIdentifier)),
        Row(file: "mock_signed_data/transactionInfo", kind: .transaction, expect: .valid),
        Row(file: "mock_signed_data/transactionInfo", kind: .transaction, bundleId: "com.example.x", expect: .failure(.appIdentifier)),
        Row(file: "mock_signed_data/renewalInfo", kind: .renewalInfo, expect: .valid),
        Row(file: "mock_signed_data/wrongBundleId", kind: .notification, expect: .failure(.appIdentifier)),
        Row(file: "mock_signed_data/missingX5CHeaderClaim", kind: .notification, expect: .failure(.format)),
        Row(file: "(literal) a.b.c.d", kind: .notification, expect: .failure(.format)),
        Row(file: "(literal) a.b.c", kind: .notification, expect: .failure(.format)),
        Row(file: "xcode/xcode-signed-transaction", kind: .transaction, bundleId: "com.example.naturelab.backyardbirds.example", expect: .failure(.format)),
        Row(file: "xcode/xcode-signed-transaction", kind: .transaction, bundleId: "com.example.naturelab.backyardbirds.example", environment: .production, expect: .failure(.format)),
        Row(file: "xcode/xcode-signed-renewal-info", kind: .renewalInfo, expect: .failure(.format)),
        Row(file: "xcode/xcode-signed-renewal-info", kind: .renewalInfo, environment: .production, expect: .failure(.format)),
        Row(file: "xcode/xcode-signed-app-transaction", kind: .transaction, bundleId: "com.example.naturelab.backyardbirds.example", expect: .failure(.format)),
        Row(file: "derived/testNotification.tampered-signature", kind: .notification, expect: .failure(.signature)),
        Row(file: "derived/testNotification.tampered-payload", kind: .notification, expect: .failure(.signature)),
        Row(file: "derived/testNotification.alg-es384", kind: .notification, expect: .failure(.format)),
        Row(file: "derived/testNotification.x5c-len2", kind: .notification, expect: .failure(.format)),
    ]

    static func jws(_ file: String) throws -> String {
        if file.hasPrefix("(literal) ") { return String(file.dropFirst("(literal) ".count)) }
        return try Vectors.text(file)
    }

    static func run(_ row: Row, now: Date = Reference.now) async throws -> Result<VerifiedSignedData, VerificationFailure> {
        let verifier = try makeVerifier(
            bundleId: row.bundleId, environment: row.environment, appAppleId: row.appAppleId,
            roots: [Vectors.root(row.root)])
        let text = try jws(row.file)
        do throws(VerificationFailure) {
            switch row.kind {
            case .transaction: return .success(.transaction(try await verifier.verifyTransaction(text, now: now)))
            case .renewalInfo: return .success(.renewalInfo(try await verifier.verifyRenewalInfo(text, now: now)))
            case .notification: return .success(.notification(try await verifier.verifyNotification(text, now: now)))
            }
        } catch {
            return .failure(error)
        }
    }

    @Test("each vector gives the outcome expectations.json names", arguments: rows)
    func vector(_ row: Row) async throws {
        let result = try await Self.run(row)
        switch result {
        case .success(let verified):
            print("VECTOR \(row.testDescription): VALID signedDate=\(verified.signedDate.map { "\(ms($0))" } ?? "none")")
            #expect(row.expect == .valid, "expected \(row.expect), got VALID")
        case .failure(let failure):
            print("VECTOR \(row.testDescription): \(failure.category) — \(failure.detail)")
            #expect(row.expect == .failure(failure.category), "expected \(row.expect), got \(failure)")
            #expect(!failure.isRetryable, "no vector fails for a temporary reason")
        }
    }

    @Test("the table covers every JWS vector in expectations.json")
    func coverage() throws {
        struct Expectations: Decodable {
            struct Vector: Decodable { var file: String }
            var jws_vectors: [Vector]
        }
        let expectations = try JSONDecoder().decode(Expectations.self, from: Data(contentsOf: Vectors.url("expectations.json")))
        let listed = Set(expectations.jws_vectors.map(\.file))
        let tested = Set(Self.rows.map(\.file))
        #expect(listed.subtracting(tested).isEmpty, "untested vectors: \(listed.subtracting(tested).sorted())")
        #expect(tested.subtracting(listed).isEmpty)
    }

    @Test("the valid notification decodes with its identity and signed date")
    func validNotificationDecodes() async throws {
        let verifier = try makeVerifier(roots: [Vectors.root("test")])
        let verified = try await verifier.verifyNotification(Vectors.text("mock_signed_data/testNotification"), now: Reference.now)
        #expect(verified.notification.payload.notificationType == "TEST")
        #expect(verified.notification.payload.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(verified.notification.payload.data?.appAppleId == 1234)
        #expect(verified.notification.signedDate == Date(timeIntervalSince1970: 1_681_314_324))
        #expect(verified.transaction == nil && verified.renewalInfo == nil)
    }

    @Test("verify(_:now:) recognises each kind from the payload")
    func kindDetection() async throws {
        let verifier = try makeVerifier(roots: [Vectors.root("test")])
        let cases: [(String, SignedDataKind)] = [
            ("mock_signed_data/testNotification", .notification),
            ("mock_signed_data/transactionInfo", .transaction),
            ("mock_signed_data/renewalInfo", .renewalInfo),
        ]
        for (file, kind) in cases {
            let verified = try await verifier.verify(Vectors.text(file), now: Reference.now)
            #expect(verified.kind == kind, "\(file)")
            #expect(verified.payloadJSON.contains("\"signedDate\""))
        }
    }

    @Test("a failure keeps the decoded payload so pro verify can print it")
    func failureCarriesPayload() async throws {
        let verifier = try makeVerifier(environment: .production, roots: [Vectors.root("test")])
        await #expect {
            _ = try await verifier.verifyNotification(Vectors.text("mock_signed_data/testNotification"), now: Reference.now)
        } throws: { error in
            guard let failure = error as? VerificationFailure else { return false }
            return failure.category == .environment && failure.payloadJSON?.contains("\"notificationType\":\"TEST\"") == true
                && failure.description == "Signed data rejected (environment): environment Sandbox, expected Production. Nothing was changed."
        }
    }

    @Test("the mock notification's chain is expired when validated in 2042")
    func testNotificationChainExpiresIn2042() async throws {
        let token = try CompactJWS(Vectors.text("mock_signed_data/testNotification"))
        let x5c = try #require(token.header.x5c)
        let leaf = try Certificate(derEncoded: Array(try #require(Data(base64Encoded: x5c[0]))))
        let intermediate = try Certificate(derEncoded: Array(try #require(Data(base64Encoded: x5c[1]))))
        let root = try Vectors.root("test")
        let at2042 = Date(timeIntervalSince1970: 2_280_946_846)
        let failure = await AppStoreVerifier.validateChain(
            leaf: leaf, intermediate: intermediate, roots: CertificateStore([root.certificate]), at: at2042)
        #expect(failure?.category == .chain)
        #expect(failure?.detail.contains("expired") == true, "\(failure?.detail ?? "valid")")
        let atSignedDate = await AppStoreVerifier.validateChain(
            leaf: leaf, intermediate: intermediate, roots: CertificateStore([root.certificate]),
            at: Date(timeIntervalSince1970: 1_681_314_324))
        #expect(atSignedDate == nil)
    }

    // MARK: - chain_vectors

    struct ChainRow: CustomTestStringConvertible, Sendable {
        var leaf: String
        var intermediate: String
        var root: String
        var time: TimeInterval
        /// nil = valid, else a fragment of the failure detail.
        var failureContains: String?
        var testDescription: String { "\(leaf) at \(Int(time)) → \(failureContains ?? "VALID")" }
    }

    static let chainRows: [ChainRow] = [
        ChainRow(leaf: "inline_leaf_cert", intermediate: "inline_intermediate_ca", root: "inline_root_ca", time: 1_761_962_975, failureContains: nil),
        ChainRow(leaf: "inline_leaf_cert_for_intermediate_ca_invalid_oid", intermediate: "inline_intermediate_ca_invalid_oid", root: "inline_root_ca", time: 1_761_962_975, failureContains: "WWDR"),
        ChainRow(leaf: "inline_leaf_cert_invalid_oid", intermediate: "inline_intermediate_ca", root: "inline_root_ca", time: 1_761_962_975, failureContains: "receipt-signer"),
        ChainRow(leaf: "inline_leaf_cert", intermediate: "inline_intermediate_ca", root: "inline_root_ca", time: 2_280_946_846, failureContains: "expired"),
        ChainRow(leaf: "inline_leaf_cert", intermediate: "inline_intermediate_ca", root: "inline_real_apple_root", time: 1_761_962_975, failureContains: "do not chain to a trusted root"),
        ChainRow(leaf: "inline_real_apple_signing_certificate", intermediate: "inline_real_apple_intermediate", root: "inline_real_apple_root", time: 1_761_962_975, failureContains: nil),
        ChainRow(leaf: "inline_real_apple_signing_certificate", intermediate: "inline_real_apple_intermediate", root: "inline_real_apple_root", time: 1_830_297_600, failureContains: "expired"),
    ]

    @Test("each chain vector validates or fails as expectations.json says", arguments: chainRows)
    func chain(_ row: ChainRow) async throws {
        let leaf = try Certificate(derEncoded: Vectors.bytes("certs/\(row.leaf).der"))
        let intermediate = try Certificate(derEncoded: Vectors.bytes("certs/\(row.intermediate).der"))
        let root = try Certificate(derEncoded: Vectors.bytes("certs/\(row.root).der"))
        let failure = await AppStoreVerifier.validateChain(
            leaf: leaf, intermediate: intermediate, roots: CertificateStore([root]),
            at: Date(timeIntervalSince1970: row.time))
        print("CHAIN \(row.testDescription): \(failure?.detail ?? "VALID")")
        if let fragment = row.failureContains {
            #expect(failure?.category == .chain)
            #expect(failure?.detail.contains(fragment) == true, "\(failure?.detail ?? "valid")")
        } else {
            #expect(failure == nil, "\(failure?.detail ?? "")")
        }
    }

    // MARK: - trust root and locally signed data

    @Test("the bundled Apple Root CA - G3 matches its pinned fingerprint and the shared copy")
    func bundledRoot() throws {
        let root = try TrustRoot.appleRootCAG3()
        #expect(root.sha256Fingerprint == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179")
        #expect(root.derEncoded == (try Vectors.bytes("certs/inline_real_apple_root.der")))
        let configuration = try AppStoreVerifier.Configuration(bundleId: "app.griptrack", environment: .sandbox)
        #expect(configuration.trustRoots == [root], "the default trust store is exactly the pinned Apple root")
    }

    @Test("Xcode and LocalTesting environments cannot be configured without the test-only flag")
    func xcodeRefusedByDefault() throws {
        for environment in [AppStoreEnvironment.xcode, .localTesting, AppStoreEnvironment(rawValue: "Staging")] {
            let configuration = try AppStoreVerifier.Configuration(
                bundleId: "com.example", environment: environment, trustRoots: [Vectors.root("test")])
            #expect(throws: EntitlementError.invalidConfiguration("environment \(environment) is not Sandbox or Production")) {
                _ = try AppStoreVerifier(configuration: configuration)
            }
        }
        let production = try AppStoreVerifier.Configuration(bundleId: "com.example", environment: .production)
        #expect(throws: EntitlementError.invalidConfiguration("Production needs the app's Apple ID")) {
            _ = try AppStoreVerifier(configuration: production)
        }
    }

    @Test("with the test-only flag, Xcode vectors decode (fractional-millisecond dates) but never grant")
    func xcodeDecodesForTests() async throws {
        let verifier = try makeVerifier(
            bundleId: "com.example.naturelab.backyardbirds.example", environment: .xcode,
            roots: [Vectors.root("test")], allowLocallySigned: true)
        let transaction = try await verifier.verifyTransaction(Vectors.text("xcode/xcode-signed-transaction"), now: Reference.now)
        #expect(transaction.payload.productId == "pass.premium")
        #expect(transaction.payload.environment == .xcode)
        #expect(transaction.payload.offerType == 1)
        let expires = try #require(transaction.payload.expiresDate)
        #expect(abs(expires.timeIntervalSince1970 - 1_700_358_336.0497297) < 0.000_01)
        let renewal = try await verifier.verifyRenewalInfo(Vectors.text("xcode/xcode-signed-renewal-info"), now: Reference.now)
        #expect(renewal.payload.autoRenewStatus == 1)
        #expect(renewal.payload.renewalDate.map { abs($0.timeIntervalSince1970 - 1_700_358_336.0497297) < 0.000_01 } == true)

        let result = EntitlementState().applying(verified: .transaction(transaction), now: Date(timeIntervalSince1970: 1_697_680_000))
        #expect(result.events.map(\.disposition) == [.ignored("Xcode/LocalTesting data never grants access")])
        #expect(resolve(result.state, now: Date(timeIntervalSince1970: 1_697_680_000)).tier == .free)
    }
}
