import Foundation
import GripStore
import GripTestSupport
import Logging
import PostgresNIO
import Testing

@testable import GripSync

/// The server is checked before it is trusted (docs/sync.md, "Schema", "Conflicts").
@Suite(
    "Sync trusts the server only after checking it", .serialized, .timeLimit(.minutes(1)),
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct SyncTrustTests {
    @Test("a freshly migrated server matches what the schema check expects")
    func freshSchemaMatches() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        try await pi.client.migrate()
        let found = try await pi.client.withConnection(migrating: false) { connection throws(SyncError) in
            do {
                return try await SchemaCheck.read(connection, logger: pi.client.logger)
            } catch {
                throw SyncError(error, operation: "read the schema")
            }
        }
        #expect(found.differences(from: .expected) == [])
        #expect(found == .expected)
    }

    @Test("a column altered outside griptrack is refused before anything is sent, naming what differs")
    func alteredColumnRefused() async throws {
        let cluster = try PostgresCluster()
        let pi = try Pi(cluster: cluster, device: "pi-gym")
        try pi.record(seconds: 2, minutes: 0)
        try await pi.push()
        // The view over the blocks goes first: PostgreSQL refuses to change a column a view reads.
        try await Self.execute(cluster, "DROP VIEW sample_chunks")
        try await Self.execute(cluster, "ALTER TABLE sample_blocks ALTER samples TYPE text")
        try await Self.execute(cluster, "ALTER TABLE recordings ALTER started_at TYPE text")
        try pi.record(seconds: 2, minutes: 5)
        let pending = try pi.store.syncStatus().pendingRows

        let error = await #expect(throws: SyncError.self) { try await pi.push() }
        #expect(
            error == .serverSchemaChanged(differences: [
                "recordings.started_at is text, not timestamp with time zone", "sample_blocks.samples is text, not bytea",
            ]))
        #expect(error?.description.hasPrefix("The server's schema was changed outside griptrack") == true)
        #expect(try pi.store.syncStatus().pendingRows == pending)
        #expect(try await pi.client.count("SELECT count(*) FROM recordings") == 1)
    }

    @Test("8 recordings, 3 of whose UUIDs another account holds: 5 are sent, the 3 are named and stay in the outbox")
    func recordingsOwnedByAnotherAccount() async throws {
        let cluster = try PostgresCluster()
        let other = try Pi(cluster: cluster, device: "pi-other", account: "other-gym")
        let pi = try Pi(cluster: cluster, device: "pi-gym", batchSize: 4)
        let shared = (0..<3).map { _ in UUID() }
        for (index, uuid) in shared.enumerated() { try other.record(seconds: 1, minutes: index, uuid: uuid) }
        try await other.push()
        var ids: [UUID: RecordingID] = [:]
        for index in 0..<8 {
            let uuid = index % 3 == 1 && index / 3 < 3 ? shared[index / 3] : UUID()
            ids[uuid] = try pi.record(seconds: 1, minutes: 10 + index, uuid: uuid)
        }

        let error = await #expect(throws: SyncError.self) { try await pi.push() }
        guard case .notOwned(let names, let account) = error else {
            Issue.record("expected the conflict to be reported, got \(String(describing: error))")
            return
        }
        #expect(account == "crag-gym")
        let expected = shared.map { uuid in "#\(ids[uuid]?.rawValue ?? 0) (\(uuid.uuidString.lowercased().prefix(8)))" }
        #expect(names.sorted() == expected.sorted())
        #expect(error?.description.contains("3 recordings were not sent") == true)
        #expect(try await pi.client.count("SELECT count(*) FROM recordings WHERE account = 'crag-gym'") == 5)
        #expect(try await pi.client.count("SELECT count(*) FROM recordings WHERE account = 'other-gym'") == 3)
        let kept = Set(try pi.store.pendingOutbox(limit: 100).compactMap(\.recordingUUID))
        #expect(kept == Set(shared))

        // The next push says so again and sends nothing twice.
        await #expect(throws: SyncError.self) { try await pi.push() }
        #expect(Set(try pi.store.pendingOutbox(limit: 100).compactMap(\.recordingUUID)) == Set(shared))
    }

    static func execute(_ cluster: PostgresCluster, _ sql: String) async throws {
        let connection = try await SyncDeadlineTests.rawConnection(cluster)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: SyncDeadlineTests.logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}

/// TLS and what a server says are handled as from a stranger (docs/sync.md, "Configuration").
@Suite("Sync against an untrusted server", .timeLimit(.minutes(1)))
struct SyncUntrustedServerTests {
    @Test("sslmode=prefer: a server that declines TLS and asks for a cleartext password never receives it")
    func cleartextPasswordRefused() async throws {
        let fake = try FakePostgresServer(.declineTLSAskCleartext)
        defer { fake.stop() }
        let password = "hunter2-correct-horse"
        let pi = try Pi(
            endpoint: SyncFixtures.endpoint(fake, tls: .prefer, password: password), device: "pi-gym",
            timeouts: SyncFixtures.shortTimeouts)
        try pi.record(seconds: 1)

        let error = await #expect(throws: SyncError.self) { try await pi.push() }
        #expect(error == .cleartextPasswordRefused(target: "griptrack@127.0.0.1:\(fake.port)/griptrack"))
        // The startup went out (it names the user), the password did not.
        try await Task.sleep(for: .milliseconds(200))
        let sent = fake.received
        #expect(Self.contains(sent, "griptrack"))
        #expect(!Self.contains(sent, password))
    }

    @Test("sslmode=require against a server without TLS says so in words")
    func requireWithoutTLS() async throws {
        let fake = try FakePostgresServer(.declineTLSAskCleartext)
        defer { fake.stop() }
        let pi = try Pi(
            endpoint: SyncFixtures.endpoint(fake, tls: .require, password: "secret"), device: "pi-gym",
            timeouts: SyncFixtures.shortTimeouts)
        try pi.record(seconds: 1)
        let error = await #expect(throws: SyncError.self) { try await pi.push() }
        #expect(error == .tlsUnsupported(target: "griptrack@127.0.0.1:\(fake.port)/griptrack"))
        #expect(error?.description.contains("does not offer TLS") == true)
    }

    @Test("a 100 KB error text full of escape sequences is cut and cleaned before it is printed or stored")
    func hugeErrorTextCleaned() async throws {
        let text = String(repeating: "\u{1B}[2J\u{1B}]0;owned\u{07}bad\r\n", count: 100_000 / 20)
        let fake = try FakePostgresServer(.errorAtStartup(text))
        defer { fake.stop() }
        let pi = try Pi(
            endpoint: SyncFixtures.endpoint(fake, tls: .disable), device: "pi-gym", timeouts: SyncFixtures.shortTimeouts)
        try pi.record(seconds: 1)
        let error = await #expect(throws: SyncError.self) { try await pi.push() }
        let stored = try #require(try pi.store.syncStatus().lastError)
        for message in [try #require(error?.description), stored] {
            #expect(message.count < 1_000, "\(message.count) characters")
            #expect(!message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
            #expect(message.contains("more characters cut"))
        }
    }

    @Test("a reply with fewer columns than the query asked for is an error, not a crash (fuzz: regression-fewer-columns)")
    func fewerColumnsThanAsked() async throws {
        // The pgreply fuzzer's input: the schema check's 4-column catalog rows, in answer to the recordings query.
        let reply = try #require(Data(base64Encoded: Self.fewerColumnsReply))
        let fake = try FakePostgresServer(.garbageAfterStartup(Array(reply)))
        defer { fake.stop() }
        let pi = try Pi(
            endpoint: SyncFixtures.endpoint(fake, tls: .disable), device: "pi-gym", timeouts: SyncFixtures.shortTimeouts)
        let error = await #expect(throws: SyncError.self) {
            try await pi.client.withConnection(migrating: false) { connection throws(SyncError) in
                try await pi.client.fetchRecordings(on: connection, uuidPrefix: nil, limit: 20)
            }
        }
        #expect(error?.description.contains("a row has 4 columns where the query asked for 19") == true, "\(String(describing: error))")
    }

    static let fewerColumnsReply = """
        MQAAAAR0AAAABgAAVAAAAHUABHJlbG5hbWUAAAAAAAAAAAAAGf///////wABYXR0bmFtZQAAAAAAAAAAAAAZ////////AAFmb3JtYXRfdHlwZQAAAAAAAAAAAAAZ\
        ////////AAFhdHRub3RudWxsAAAAAAAAAAAAABAAAf////8AATIAAAAERAAAADUABAAAAA1zYW1wbGVfY2h1bmtzAAAAB3NhbXBsZXMAAAAFYnl0ZWEAAAABAUQA\
        AP8AKQAEAAAACnJlY29yZGluZ3MAAAAEaGFuZAAAAAR0ZXh0AAAAAQBDAAAADVNFTEU6Q1QgMQBaAAAABUk=
        """

    @Test("sslmode defaults to require for any host but this machine")
    func defaultTLSMode() {
        #expect(SyncEndpoint(host: "db.example.net", user: "u", database: "d").tls == .require)
        #expect(SyncEndpoint(host: "10.0.0.7", user: "u", database: "d").tls == .require)
        #expect(SyncEndpoint(host: "127.0.0.1", user: "u", database: "d").tls == .prefer)
        #expect(SyncEndpoint(host: "localhost", user: "u", database: "d").tls == .prefer)
        #expect(SyncEndpoint(host: "::1", user: "u", database: "d").tls == .prefer)
        #expect(SyncEndpoint(host: "/run/postgresql", user: "u", database: "d").tls == .prefer)
        #expect(SyncEndpoint(host: "127.example.net", user: "u", database: "d").tls == .require)
    }

    static func contains(_ bytes: [UInt8], _ text: String) -> Bool {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return false }
        return (0...(bytes.count - needle.count)).contains { Array(bytes[$0..<($0 + needle.count)]) == needle }
    }
}
