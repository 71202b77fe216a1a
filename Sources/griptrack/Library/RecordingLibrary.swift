import Foundation
import GripAnalysis
import GripEntitlements
import GripProtocol
import GripStore

/// Where the store commands read and change recordings and the plan: griptrackd's database through its socket, or
/// a database file opened by the command (docs/storage.md). Each method applies the plan of that database: the
/// free plan shows the newest 5 recordings, Pro features exit 3 without Pro.
protocol RecordingLibrary {
    /// Which database this is (for `--json` and messages).
    var database: DatabaseChoice { get }
    /// The plan now.
    func plan() throws -> Plan
    /// The newest recordings the plan shows that pass `filter`, at most `limit`, and how many are not shown.
    func list(limit: Int?, filter: RecordingFilter) throws -> (RecordingList, Plan)
    /// One recording the plan shows, with its efforts; exit 1 if there is none, 3 if the free plan hides it.
    func show(_ id: RecordingID) throws -> (RecordingRow, [StoredEffort])
    /// Every sample of a recording the plan shows (read a page of chunks at a time from a daemon).
    func samples(of id: RecordingID) throws -> [StoredSample]
    /// The Tindeq app's own figures of an imported recording beside griptrack's; nil for a recording griptrack
    /// measured. `row`, `efforts` and `samples` are what ``show(_:)`` and ``samples(of:)`` gave for it.
    func importComparison(of row: RecordingRow, efforts: [StoredEffort], samples: [StoredSample]) throws -> ImportComparison?
    /// Max and average over what the plan shows.
    func stats() throws -> (RecordingStatistics, Plan)
    /// Every recording with its efforts (Pro): trends and comparisons.
    func history() throws -> [AnalysedRecording]
    /// A recording's row for the delete prompt, hidden or not; nil when the daemon will not say.
    func row(_ id: RecordingID) throws -> RecordingRow?
    /// Deletes a recording; exit 1 when there is none.
    func delete(_ id: RecordingID) throws
    /// Changes what a recording says about itself (`griptrack label`); the row as stored afterwards.
    func describe(_ id: RecordingID, _ change: RecordingDescription) throws -> RecordingRow
    /// Grants Pro by hand; the plan after.
    func grant(note: String?, expires: Date?) throws -> Plan
    /// Removes the manual grant: whether there was one (nil when the daemon does not say), and the plan after.
    func revoke(note: String?) throws -> (removed: Bool?, plan: Plan)
}

extension RecordingLibrary {
    /// The newest recordings the plan shows, at most `limit`, and how many are not shown.
    func list(limit: Int?) throws -> (RecordingList, Plan) { try list(limit: limit, filter: RecordingFilter()) }
}

/// Opens the library a store command works on: `--db` forces a file; otherwise griptrackd's database when a daemon
/// answers on the socket, else the personal database.
enum LibraryChoice {
    /// - Throws: exit 5 for an invalid configuration; exit 4 when a daemon is there but refuses this user or cannot be
    ///   used; the store's exit codes.
    static func open(common: CommonOptions, socket: SocketOption) throws -> any RecordingLibrary {
        // Read even when the daemon's library is used: an invalid file is reported wherever it is named, never
        // passed over because this command happened not to need it.
        _ = try common.loadConfig()
        if let db = common.db {
            return try LocalLibrary(common: common, database: DatabaseChoice(kind: .explicit, path: db))
        }
        let path = socket.socket ?? DaemonSocket.defaultPath
        do {
            return try DaemonLibrary(connection: DaemonConnection(path: path))
        } catch .notRunning, .notListening {
            return try LocalLibrary(common: common, database: DatabaseChoice(kind: .personal, path: common.databasePath))
        } catch {
            throw error.exit.fail(error.description)
        }
    }
}
