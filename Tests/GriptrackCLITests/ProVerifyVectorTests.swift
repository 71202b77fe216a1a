import Foundation
import GripTestSupport
import Testing

/// Every JWS vector of expectations.json through `griptrack pro verify`, configured through a config file.
@Suite("pro verify over the App Store vectors")
struct ProVerifyVectorTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var file: String
        var kind = "auto"
        var root = "certs/testCA.der"
        var bundleId = "com.example"
        var appAppleId = 1234
        var environment = "Sandbox"
        var at = "2025-11-01"
        /// `nil` = valid (exit 0), else the category label printed with exit 5.
        var category: String?
        var testDescription: String { "\(file) as \(kind), \(environment), \(root) → \(category ?? "valid")" }
    }

    /// One row per `jws_vectors` entry (same order). The verifier checks the chain at its own clock (`--at`), never at
    /// a date the payload gives before its signature is checked (docs/entitlements.md, "Order of checks"), so the
    /// "validated in 2042" row is expectations.json's "certificate expired", as in online mode.
    static let rows: [Row] = [
        Row(file: "mock_signed_data/testNotification", kind: "notification"),
        Row(file: "mock_signed_data/testNotification", kind: "notification", environment: "Production", category: "environment"),
        Row(file: "mock_signed_data/testNotification", kind: "notification", root: "", category: "certificate chain"),
        Row(file: "mock_signed_data/testNotification", kind: "notification", at: "2042-04-12", category: "certificate chain"),
        Row(file: "mock_signed_data/testNotification", kind: "transaction", appAppleId: 1235, category: "app identifier"),
        Row(file: "mock_signed_data/transactionInfo", kind: "transaction"),
        Row(file: "mock_signed_data/transactionInfo", kind: "transaction", bundleId: "com.example.x", category: "app identifier"),
        Row(file: "mock_signed_data/renewalInfo", kind: "renewal-info"),
        Row(file: "mock_signed_data/wrongBundleId", kind: "notification", category: "app identifier"),
        Row(file: "mock_signed_data/missingX5CHeaderClaim", category: "format"),
        Row(file: "(literal) a.b.c.d", category: "format"),
        Row(file: "(literal) a.b.c", category: "format"),
        Row(file: "xcode/xcode-signed-transaction", bundleId: "com.example.naturelab.backyardbirds.example", category: "format"),
        Row(file: "xcode/xcode-signed-renewal-info", environment: "Production", category: "format"),
        Row(file: "xcode/xcode-signed-app-transaction", category: "format"),
        Row(file: "derived/testNotification.tampered-signature", category: "signature"),
        Row(file: "derived/testNotification.tampered-payload", category: "signature"),
        Row(file: "derived/testNotification.alg-es384", category: "format"),
        Row(file: "derived/testNotification.x5c-len2", category: "format"),
    ]

    @Test("each vector gives its expected outcome and exit code", arguments: rows)
    func vector(_ row: Row) async throws {
        let roots = row.root.isEmpty ? "[]" : "[\"\(Vectors.path(row.root))\"]"
        let sandbox = try CLISandbox(config: """
            [app_store]
            bundle_id = "\(row.bundleId)"
            environment = "\(row.environment)"
            app_apple_id = \(row.appAppleId)
            trusted_roots = \(roots)
            """)
        defer { sandbox.cleanUp() }
        var arguments = ["pro", "verify", "--as", row.kind, "--at", row.at, "--config", sandbox.config]
        var stdin = ""
        if row.file.hasPrefix("(literal) ") {
            arguments.append("-")
            stdin = String(row.file.dropFirst("(literal) ".count))
        } else {
            arguments.append(Vectors.path(row.file))
        }
        let result = try await sandbox.plain(arguments, stdin: stdin)
        if let category = row.category {
            #expect(result.status == 5, "\(result)")
            #expect(result.stderr.hasPrefix("griptrack: Signed data rejected (\(category)): "), "\(result)")
            #expect(result.stderr.contains("Nothing was changed."), "\(result)")
        } else {
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.hasPrefix("Valid App Store "), "\(result)")
            #expect(result.stdout.contains("\"signedDate\""), "the decoded payload is printed")
            // Every valid vector was signed in 2023: valid, but too old to grant Pro on its own.
            #expect(result.stderr.contains("warning: valid, but signed 2023-"), "\(result)")
            #expect(result.stderr.contains("cannot grant Pro on its own"), "\(result)")
        }
    }

    @Test("the table covers every JWS vector in expectations.json")
    func coverage() async throws {
        struct Expectations: Decodable {
            struct Vector: Decodable { var file: String }
            var jws_vectors: [Vector]
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: Vectors.path("expectations.json")))
        let listed = try JSONDecoder().decode(Expectations.self, from: data).jws_vectors.map(\.file)
        #expect(listed == Self.rows.map(\.file))
    }

    @Test("a wrong-environment notification is refused verbatim, with the configuration hint, and prints its payload")
    func wrongEnvironmentVerbatim() async throws {
        let sandbox = try CLISandbox(config: """
            [app_store]
            bundle_id = "com.example"
            environment = "Production"
            app_apple_id = 1234
            trusted_roots = ["\(Vectors.path("certs/testCA.der"))"]
            """)
        defer { sandbox.cleanUp() }
        let result = try await sandbox.plain([
            "pro", "verify", Vectors.path("mock_signed_data/testNotification"), "--at", "2025-11-01",
            "--config", sandbox.config,
        ])
        #expect(result.status == 5)
        #expect(result.stderr == "griptrack: Signed data rejected (environment): environment Sandbox, expected Production. "
            + "Nothing was changed. This installation accepts Production data ([app_store] environment in \(sandbox.config)).\n")
        #expect(result.stdout.contains("\"notificationType\" : \"TEST\""), "\(result)")
    }

    @Test("pro import refuses tampered data with exit 5 and changes nothing")
    func importTampered() async throws {
        let sandbox = try CLISandbox(config: """
            [app_store]
            bundle_id = "com.example"
            environment = "Sandbox"
            trusted_roots = ["\(Vectors.path("certs/testCA.der"))"]
            """)
        defer { sandbox.cleanUp() }
        let result = try await sandbox.run("pro", "import", Vectors.path("derived/testNotification.tampered-signature"))
        #expect(result.status == 5)
        #expect(result.stderr == "griptrack: Signed data rejected (signature): the ES256 signature does not match the "
            + "header and payload. Nothing was changed.\n")
        #expect(try await sandbox.run("pro", "status").stdout == "Free: no Pro subscription\nFree: 0 of 5 recordings stored\n")
    }

    @Test("pro import stores a valid notification once and ignores its replay")
    func importTwice() async throws {
        let sandbox = try CLISandbox(config: """
            [app_store]
            bundle_id = "com.example"
            environment = "Sandbox"
            trusted_roots = ["\(Vectors.path("certs/testCA.der"))"]
            """)
        defer { sandbox.cleanUp() }
        let file = Vectors.path("mock_signed_data/testNotification")
        let first = try await sandbox.run("pro", "import", file)
        #expect(first.status == 0, "\(first)")
        #expect(first.stdout == "Notification: stored\nFree: no Pro subscription\n")
        let second = try await sandbox.run("pro", "import", file)
        #expect(second.status == 0)
        #expect(second.stdout == "Notification: ignored: this notification was already applied\nFree: no Pro subscription\n")
    }
}

@Suite("account binding")
struct AccountBindingTests {
    @Test("with account_token set, a valid transaction without that appAccountToken is refused as app identifier")
    func unboundTransactionRefused() async throws {
        let sandbox = try CLISandbox(config: """
            [app_store]
            bundle_id = "com.example"
            environment = "Sandbox"
            trusted_roots = ["\(Vectors.path("certs/testCA.der"))"]
            account_token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
            """)
        defer { sandbox.cleanUp() }
        let result = try await sandbox.plain([
            "pro", "verify", Vectors.path("mock_signed_data/transactionInfo"), "--at", "2025-11-01",
            "--config", sandbox.config,
        ])
        #expect(result.status == 5)
        #expect(result.stderr == "griptrack: Signed data rejected (app identifier): appAccountToken missing, expected "
            + "\"7e3fb20b-4cdb-47cc-936d-99d65f608138\" (app_store.account_token). Nothing was changed.\n")
    }
}
