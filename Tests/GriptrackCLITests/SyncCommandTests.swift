import Foundation
import GripTestSupport
import Testing

/// `griptrack sync` without a server: the Pro gate, the status, and configuration errors.
@Suite("griptrack sync")
struct SyncCommandTests {
    static let config = """
        [entitlements]
        bypass = false

        [sync]
        url = "postgres://griptrack@127.0.0.1:1/griptrack?sslmode=disable"
        account = "crag-gym"
        device_name = "pi-test"
        """

    @Test("the free plan is refused with exit 3 and the resolver's reason; the outbox keeps the recording")
    func freePlanRefused() async throws {
        let sandbox = try CLISandbox(config: Self.config)
        defer { sandbox.cleanUp() }
        try await sandbox.run("replay", sandbox.capture("max-pulls"), "--save")
        let plan = try await sandbox.run("pro", "status")
        let reason = try #require(plan.stdout.split(separator: "\n").first.map(String.init))
        let result = try await sandbox.run("sync")
        #expect(result.status == 3, "\(result)")
        #expect(result.stderr.contains("Sync needs Pro (\(reason))"), "\(result)")
        let status = try await sandbox.run("sync", "status", "--json")
        #expect(status.status == 0)
        #expect(!status.stdout.contains("\"pending_rows\" : 0"), "\(status)")
        #expect(status.stdout.contains("Sync needs Pro"), "\(status)")
    }

    @Test("with Pro, an unreachable server exits 1 naming it, and sync status shows the error")
    func unreachableServer() async throws {
        let sandbox = try CLISandbox(config: Self.config.replacingOccurrences(of: "bypass = false", with: "bypass = true"))
        defer { sandbox.cleanUp() }
        try await sandbox.run("replay", sandbox.capture("max-pulls"), "--save")
        let result = try await sandbox.run("sync")
        #expect(result.status == 1, "\(result)")
        #expect(result.stderr.contains("Could not connect to PostgreSQL at griptrack@127.0.0.1:1/griptrack."), "\(result)")
        // The project's sentence first, the library's detail after it, in words, parentheses balanced.
        #expect(result.stderr.contains("Detail: 127.0.0.1:1: Connection refused, errno 111"), "\(result)")
        #expect(result.stderr.filter { $0 == "(" }.count == result.stderr.filter { $0 == ")" }.count, "\(result)")
        let status = try await sandbox.run("sync", "status")
        #expect(status.stdout.contains("Last error: "), "\(status)")
        #expect(status.stdout.contains("Could not connect"), "\(status)")
    }

    @Test("sync status shows a push under way, and ignores the marker of a push whose process is gone")
    func pushInProgress() async throws {
        let sandbox = try CLISandbox(config: Self.config)
        defer { sandbox.cleanUp() }
        let marker = sandbox.database + ".sync-push"
        // This test process stands in for a `griptrack sync` that is still waiting on its server.
        try Data("\(getpid()) 1795000000.25\n".utf8).write(to: URL(fileURLWithPath: marker))
        let busy = try await sandbox.run("sync", "status")
        #expect(busy.stdout.hasPrefix("Pushing: since "), "\(busy)")
        #expect(try await sandbox.run("sync", "status", "--json").stdout.contains("\"pushing_since\""))
        // A pid that cannot exist (above pid_max): the push was killed and left its marker.
        try Data("99999999 1795000000.25\n".utf8).write(to: URL(fileURLWithPath: marker))
        let idle = try await sandbox.run("sync", "status")
        #expect(!idle.stdout.contains("Pushing"), "\(idle)")
    }

    @Test("sync without [sync] url exits 5 naming the key")
    func notConfigured() async throws {
        let sandbox = try CLISandbox(config: "[entitlements]\nbypass = true\n")
        defer { sandbox.cleanUp() }
        let result = try await sandbox.run("sync")
        #expect(result.status == 5, "\(result)")
        #expect(result.stderr.contains("[sync] url is not set"), "\(result)")
    }
}

/// `show`, `export` and `list --everywhere` against a real PostgreSQL 15: one device pushes, another reads.
@Suite(
    "griptrack --everywhere", .serialized,
    .enabled(if: PostgresCluster.shouldRun, "PostgreSQL 15 is not installed: run scripts/setup"))
struct EverywhereCommandTests {
    /// Two Pis of one account on `cluster`: the gym's, which records and pushes, and the one at home, which reads.
    static func gymAndHome(_ cluster: PostgresCluster) throws -> (gym: CLISandbox, home: CLISandbox) {
        (try CLISandbox(config: config(cluster, device: "pi-gym")), try CLISandbox(config: config(cluster, device: "pi-home")))
    }

    static func config(_ cluster: PostgresCluster, device: String) -> String {
        """
        [entitlements]
        bypass = true

        [sync]
        url = "postgres://griptrack@localhost/postgres?sslmode=disable&host=\(cluster.directory)"
        account = "crag-gym"
        device_name = "\(device)"
        """
    }

    @Test("a recording pushed by one device is listed, shown and exported by another, sample for sample")
    func anotherDevicesRecording() async throws {
        let cluster = try PostgresCluster()
        let (gym, home) = try Self.gymAndHome(cluster)
        defer {
            gym.cleanUp()
            home.cleanUp()
        }
        try await gym.run("replay", gym.capture("repeaters"), "--save")
        #expect(try await gym.run("sync").status == 0)

        let listed = try await home.run("list", "--everywhere", "--json")
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])?["recordings"]
                as? [[String: Any]], "\(listed)")
        #expect(rows.map { $0["device_name"] as? String } == ["pi-gym"])
        let uuid = try #require(rows.first?["uuid"] as? String)
        let short = String(uuid.prefix(8))
        #expect(try await home.run("list", "--everywhere").stdout.contains(short + "  "))

        // Everything below the title line is what the recording device prints for its own copy.
        let local = try await gym.run("show", "1")
        let remote = try await home.run("show", "--everywhere", short)
        #expect(remote.status == 0, "\(remote)")
        #expect(remote.stdout.hasPrefix("Recording \(short) from pi-gym: "), "\(remote)")
        #expect(remote.stdout.drop { $0 != "\n" } == local.stdout.drop { $0 != "\n" })

        // The exported samples and efforts are the device's, bit for bit; only the tag line names the source.
        let localCSV = try await gym.run("export", "1", "--format", "csv").stdout
        let remoteCSV = try await home.run("export", "--everywhere", uuid.uppercased(), "--format", "csv").stdout
        func withoutTag(_ csv: String) -> [Substring] { csv.split(separator: "\r\n").filter { !$0.hasPrefix("tag,") } }
        #expect(withoutTag(remoteCSV) == withoutTag(localCSV))
        #expect(remoteCSV.contains("tag,griptrack recording \(uuid) from pi-gym"))
        let localJSON = try JSONSerialization.jsonObject(
            with: Data(try await gym.run("export", "1", "--format", "json").stdout.utf8)) as? [String: Any]
        let remoteJSON = try JSONSerialization.jsonObject(
            with: Data(try await home.run("export", "--everywhere", short, "--format", "json").stdout.utf8)) as? [String: Any]
        #expect(remoteJSON?["device_name"] as? String == "pi-gym")
        #expect(remoteJSON?["id"] == nil)
        #expect((remoteJSON?["samples"] as? [Any])?.count == (localJSON?["samples"] as? [Any])?.count)
        #expect(
            (remoteJSON?["efforts"] as? [[String: Any]])?.map { $0["peak_kg"] as? Double }
                == (localJSON?["efforts"] as? [[String: Any]])?.map { $0["peak_kg"] as? Double })
    }

    @Test("stats and trends --everywhere cover both devices' recordings, as one database holding both would")
    func statsAcrossDevices() async throws {
        let cluster = try PostgresCluster()
        let (gym, home) = try Self.gymAndHome(cluster)
        let both = try CLISandbox(config: "[entitlements]\nbypass = true\n")
        defer {
            for sandbox in [gym, home, both] { sandbox.cleanUp() }
        }
        for (sandbox, capture) in [(gym, "repeaters"), (home, "max-pulls"), (both, "repeaters"), (both, "max-pulls")] {
            #expect(try await sandbox.run("replay", sandbox.capture(capture), "--save").status == 0)
        }
        #expect(try await gym.run("sync").status == 0)
        #expect(try await home.run("sync").status == 0)

        func json(_ result: CLIRunner.Result) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result)")
        }
        let everywhere = try json(try await home.run("stats", "--everywhere", "--json"))
        let local = try json(try await both.run("stats", "--json"))
        #expect(everywhere["account"] as? String == "crag-gym")
        #expect(everywhere["devices"] as? Int == 2)
        for key in ["recordings", "efforts", "samples", "max_kg", "avg_kg"] {
            #expect("\(everywhere[key] ?? "nil")" == "\(local[key] ?? "nil")", "\(key)")
        }
        let trendsEverywhere = try json(try await gym.run("trends", "--everywhere", "--json"))
        let trendsLocal = try json(try await both.run("trends", "--json"))
        for key in ["personal_best_kg", "slope_kg_per_week", "change_from_first_kg"] {
            #expect("\(trendsEverywhere[key] ?? "nil")" == "\(trendsLocal[key] ?? "nil")", "\(key)")
        }
        let text = try await home.run("stats", "--everywhere")
        #expect(text.stdout.hasPrefix("All 2 recordings of account crag-gym from 2 devices"), "\(text)")
        // The server's recordings have no local id: the latest is named by its UUID, never "#0".
        #expect(!text.stdout.contains("Latest (#0)"), "\(text)")
        #expect(text.stdout.contains("Latest ("), "\(text)")
        let comparison = everywhere["comparison"] as? [String: Any]
        #expect(comparison?["latest_id"] == nil, "\(everywhere)")
        #expect((comparison?["latest_uuid"] as? String)?.count == 36, "\(everywhere)")
    }

    @Test("a first sync with nothing to send still checks the server: a wrong database name exits 1 saying so")
    func firstSyncChecksServer() async throws {
        let cluster = try PostgresCluster()
        let wrong = try CLISandbox(
            config: Self.config(cluster, device: "pi-gym").replacingOccurrences(of: "/postgres?", with: "/nosuchdb?"))
        let good = try CLISandbox(config: Self.config(cluster, device: "pi-gym"))
        defer {
            wrong.cleanUp()
            good.cleanUp()
        }
        for arguments in [["sync"], ["sync", "--check"]] {
            let failed = try await wrong.runner.run(arguments + ["--db", wrong.database, "--config", wrong.config])
            #expect(failed.status == 1, "\(failed)")
            #expect(failed.stderr.contains("Could not connect to PostgreSQL at griptrack@"), "\(failed)")
            #expect(failed.stderr.contains("\"nosuchdb\" does not exist"), "\(failed)")
            #expect(!failed.stdout.contains("Sent 0 rows"), "\(failed)")
        }
        let check = try await good.run("sync", "--check")
        #expect(check.status == 0, "\(check)")
        #expect(check.stdout.contains("answers and its schema is griptrack's"), "\(check)")
    }

    @Test("sync status marks an error that a later push got past, to the millisecond")
    func resolvedErrorMarked() async throws {
        let cluster = try PostgresCluster()
        let gym = try CLISandbox(config: Self.config(cluster, device: "pi-gym"))
        defer { gym.cleanUp() }
        try cluster.stop()
        #expect(try await gym.run("sync").status == 1)
        let failing = try await gym.run("sync", "status")
        #expect(failing.stdout.contains("Last error: "), "\(failing)")
        #expect(!failing.stdout.contains("since resolved"), "\(failing)")
        try cluster.start()
        #expect(try await gym.run("sync").status == 0)
        let status = try await gym.run("sync", "status")
        #expect(status.stdout.contains("(before the last success, since resolved)"), "\(status)")
        #expect(status.stdout.contains { $0 == "." }, "\(status)")
        let json = try await gym.run("sync", "status", "--json")
        #expect(json.stdout.contains("\"last_error_resolved\" : true"), "\(json)")
    }

    @Test("an unknown UUID start exits 1 saying where to look; a UUID without --everywhere is a usage error")
    func unknownReference() async throws {
        let cluster = try PostgresCluster()
        let home = try CLISandbox(config: Self.config(cluster, device: "pi-home"))
        defer { home.cleanUp() }
        let missing = try await home.run("show", "--everywhere", "deadbeef")
        #expect(missing.status == 1, "\(missing)")
        #expect(missing.stderr.contains("no recording of account crag-gym on the sync server has a UUID starting with 'deadbeef'"), "\(missing)")
        let local = try await home.run("show", "deadbeef")
        #expect(local.status == 2, "\(local)")
        #expect(local.stderr.contains("add --everywhere"), "\(local)")
    }
}
