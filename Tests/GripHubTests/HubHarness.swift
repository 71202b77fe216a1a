import Foundation
import GripEntitlements
import GripStore
import GripSync
import GripTestSupport
import Logging
import PostgresNIO
import ServiceLifecycle

@testable import GripHub

/// A throwaway PostgreSQL 15 cluster, migrated, with one account; griptrack-hub listening on 127.0.0.1 (a port the
/// system picks); and the test chain that signs the notifications.
final class HubHarness: Sendable {
    static let logger = Logger(label: "griptrack.hub.tests")
    static let account = "crag-gym"
    static let accountUUID = UUID(uuidString: "6f1c2a4e-8d3b-4b7a-9c2e-1f0a5b6c7d8e")!

    let cluster: PostgresCluster
    let endpoint: SyncEndpoint
    let signer: AppStoreSigner
    let server: HubServer
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(requestsPerMinute: Int = 1_000) async throws {
        cluster = try PostgresCluster()
        endpoint = SyncEndpoint(
            host: cluster.directory, port: PostgresCluster.port, user: PostgresCluster.user, database: "postgres",
            tls: .disable)
        signer = try AppStoreSigner()
        try await NotificationArchive(endpoint: endpoint, logger: Self.logger).check()
        server = HubServer(
            settings: HubSettings(
                host: "127.0.0.1", port: 0, verifier: try signer.verifier(), database: endpoint,
                requestsPerMinute: requestsPerMinute),
            logger: Self.logger)
        // In a service group as griptrack-hub runs it, so the test ends it the way SIGTERM does.
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [server], logger: Self.logger))
        self.group = group
        task = Task { try await group.run() }
        guard let port = await server.waitUntilListening() else { throw LoopbackHTTP.Failure(description: "hub did not listen") }
        self.port = port
        try await execute(
            "INSERT INTO accounts (account, account_uuid) VALUES ('\(Self.account)', '\(Self.accountUUID.uuidString.lowercased())')")
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Posts a body to the notifications endpoint.
    func post(_ body: String, headers: [String: String] = [:]) async throws -> LoopbackHTTP.Response {
        try await LoopbackHTTP.request(port: port, "POST", "/appstore/v2/notifications", headers: headers, body: body)
    }

    /// Runs a statement as the cluster's superuser (what an operator, or anyone holding its role, can do).
    func execute(_ sql: String) async throws {
        try await withConnection { connection in
            _ = try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger)
        }
    }

    /// Runs `body` while another session holds `table` locked (ACCESS EXCLUSIVE), as a long transaction or a
    /// migration by hand would.
    func whileLocked<T: Sendable>(_ table: String, _ body: () async throws -> T) async throws -> T {
        try await withConnection { connection in
            _ = try await connection.query("BEGIN", logger: Self.logger)
            _ = try await connection.query(
                PostgresQuery(unsafeSQL: "LOCK TABLE \(table) IN ACCESS EXCLUSIVE MODE"), logger: Self.logger)
            let result = try await body()
            _ = try await connection.query("ROLLBACK", logger: Self.logger)
            return result
        }
    }

    /// A single number from the server.
    func count(_ sql: String) async throws -> Int {
        try await withConnection { connection in
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT (\(sql))::bigint"), logger: Self.logger)
            for try await value in rows.decode(Int64.self) { return Int(value) }
            return 0
        }
    }

    private func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await PostgresConnection.connect(
            configuration: PostgresConnection.Configuration(
                unixSocketPath: cluster.directory + "/.s.PGSQL.\(PostgresCluster.port)", username: PostgresCluster.user,
                password: nil, database: "postgres"),
            id: 7, logger: Self.logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// A Pi of `account`: a store in a temporary directory and a client that pulls the account's App Store data
    /// through this chain's verifier.
    func pi(
        device: String, account: String = HubHarness.account, operatorKey: OperatorKey? = nil,
        accountToken: UUID? = nil
    ) throws -> HubPi {
        try HubPi(
            endpoint: endpoint, device: device, account: account, verifier: try signer.verifier(),
            operatorKey: operatorKey, accountToken: accountToken)
    }

    /// The operator's handle on the server (what `griptrack admin` uses).
    var operatorDatabase: OperatorDatabase { OperatorDatabase(endpoint: endpoint, logger: Self.logger) }
}

/// One Pi: its own store and sync client (with its own verifier).
final class HubPi: Sendable {
    let directory: URL
    let store: RecordingStore
    let client: SyncClient

    init(
        endpoint: SyncEndpoint, device: String, account: String, verifier: AppStoreVerifier, operatorKey: OperatorKey?,
        accountToken: UUID? = nil
    ) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("griptrack-hub-tests-\(UUID().uuidString)", isDirectory: true)
        store = try RecordingStore(path: directory.appendingPathComponent("griptrack.db").path)
        client = SyncClient(
            settings: SyncSettings(endpoint: endpoint, account: account, deviceName: device),
            accountVerifier: verifier, operatorKey: operatorKey, accountToken: accountToken, logger: HubHarness.logger)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// A sync as griptrackd runs it: pull, then push what the plan allows. A refusal for the free plan is the
    /// normal end of a free device's sync, not a failure here.
    func sync() async throws {
        do {
            try await client.push(from: store, context: AccessContext(), now: Date())
        } catch .proRequired {
        }
    }

    /// Records a short session through the store's live path (begin, chunk commits, finish with one effort).
    func record(seconds: Int = 2, label: String) throws {
        let draft = RecordingDraft(
            uuid: UUID(), startedAt: Date(timeIntervalSince1970: 1_772_355_600), device: "F4:12:FA:01:02:03",
            profile: "Tindeq Progressor", hand: .right, label: label)
        let id = try store.beginRecording(draft) { _ in .admit }
        let writer = ChunkWriter(store: store, recording: id)
        for start in stride(from: 0, to: seconds * 80, by: 40) {
            try writer.append(
                (start..<(start + 40)).map { StoredSample(micros: 1_000_000 + Int64($0) * 12_500, kilograms: 20) }[...])
            try writer.flush()
        }
        try writer.finish(
            summary: RecordingSummaryValues(
                endedAt: draft.startedAt.addingTimeInterval(TimeInterval(seconds)), maxKilograms: 20, averageKilograms: 20),
            efforts: [
                StoredEffort(
                    index: 0, startMicros: 1_250_000, endMicros: 2_250_000, peakKilograms: 20, meanKilograms: 20,
                    durationMicros: 1_000_000, timeToPeakMicros: 500_000, rfdKilogramsPerSecond: 10,
                    impulseKilogramSeconds: 20, baselineKilograms: 0, isOpen: false)
            ])
    }

    var access: Access {
        get throws { try store.accessStatus(AccessContext(), now: Date()).access }
    }
}
