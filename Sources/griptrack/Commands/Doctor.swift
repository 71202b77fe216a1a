import ArgumentParser
import Foundation
import GripStore

extension Griptrack {
    /// `griptrack doctor`: checks a database and sets damaged recordings aside.
    struct Doctor: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "doctor",
            abstract: "Check a recordings database; with --repair, set damaged recordings aside.",
            discussion: """
                Runs SQLite's integrity check and reads every recording, effort and sample chunk the way the other \
                commands do. A recording that cannot be read whole is listed with the reason. --repair moves each \
                one, with its efforts and samples, into quarantine tables in the same file (nothing is deleted), so \
                every other command sees only sound recordings. On the Pi, run it as root on the daemon's database: \
                griptrack doctor --db /var/lib/griptrack/griptrack.db. Exits 0 when the database is sound (or was \
                repaired), 1 when damage remains.
                """
        )

        @OptionGroup var common: CommonOptions

        @Flag(help: "Move damaged recordings into the quarantine tables.")
        var repair = false

        struct Report: Encodable {
            struct Damage: Encodable {
                var id: Int64?
                var reason: String
            }

            var database: String
            var integrity: [String]
            var damaged: [Damage]
            var quarantinedNow: [Int64]
            var quarantinedBefore: Int
            var healthy: Bool
        }

        func run() throws {
            let store = try common.openStore()
            let health: StoreHealth
            var moved: [Int64] = []
            do {
                health = try store.checkHealth()
                if repair && !health.damaged.isEmpty { moved = try store.quarantine(health.damaged) }
            } catch {
                throw CLIExit.storeFailure(error)
            }
            let remaining = health.damaged.filter { damage in damage.id.map { !moved.contains($0) } ?? true }
            let healthy = health.integrity == ["ok"] && remaining.isEmpty
            if common.json {
                try printJSON(Report(
                    database: common.databasePath, integrity: health.integrity,
                    damaged: health.damaged.map { Report.Damage(id: $0.id, reason: $0.reason) }, quarantinedNow: moved,
                    quarantinedBefore: health.quarantined, healthy: healthy))
            } else {
                print("Database:    \(common.databasePath)")
                print("Integrity:   \(health.integrity == ["ok"] ? "ok" : health.integrity.joined(separator: "; "))")
                if health.damaged.isEmpty {
                    print("Recordings:  every recording reads")
                }
                for damage in health.damaged {
                    let which = damage.id.map { "recording \($0)" } ?? "a recording"
                    let done = damage.id.map { moved.contains($0) } == true ? " → quarantined" : ""
                    print("Damaged:     \(which): \(damage.reason)\(done)")
                }
                if health.quarantined > 0 { print("Quarantined: \(health.quarantined) earlier (table quarantinedRecording)") }
            }
            if !healthy {
                let hint = remaining.isEmpty
                    ? "SQLite's integrity check failed: restore the file from a backup, or move it aside to start anew."
                    : "\(remaining.count) damaged recording(s) remain: `griptrack doctor --repair` sets them aside."
                throw CLIExit.error.fail(hint)
            }
        }
    }
}
