import Foundation
import GRDB

/// The griptrack database: recordings, their efforts and samples, and the entitlement state.
///
/// The file is SQLite in WAL mode with foreign keys on, `synchronous = FULL` (a committed chunk survives a power
/// cut), and a busy timeout so that processes sharing it (the daemon, the CLI) wait for each other instead of
/// failing. Every write runs in an IMMEDIATE transaction: it takes the write lock before it reads, so what it
/// counts cannot change before it writes.
///
/// Opening a store runs the migrations, then closes every recording left in state `recording` whose writer process
/// is gone (crash, SIGKILL, power cut), marking it `recovered` and keeping every committed chunk.
///
/// - Important: Thread-safe; GRDB serializes access. Many processes may open the same file.
public final class RecordingStore: Sendable {
    /// How long a write waits for another process's write lock before failing with SQLite error 5.
    public static let busyTimeout: TimeInterval = 30

    /// The database file, or `nil` for an in-memory store.
    public let path: String?
    /// The recordings this open closed and marked `recovered`, oldest first.
    public let recoveredOnOpen: [RecordingID]

    let writer: any DatabaseWriter
    let owner: ProcessOwner

    /// Opens (creating if needed) the database file at `path`, migrates it and recovers abandoned recordings.
    ///
    /// - Parameters:
    ///   - path: The database file; missing parent directories are created.
    ///   - willUpgrade: Called before migrating a file an earlier version wrote, with the migrations to apply. An
    ///     upgrade can rewrite every sample (`v5` copies each chunk once: seconds for a few hundred MiB here, minutes
    ///     on a Pi's SD card), so a caller that others wait for says so.
    /// - Throws: ``GripStoreError/cannotOpen(path:sqliteCode:message:)``,
    ///   ``GripStoreError/schemaFromNewerVersion(path:)``, or an SQLite error from recovery.
    public convenience init(
        path: String, willUpgrade: ((_ migrations: [String]) -> Void)? = nil
    ) throws(GripStoreError) {
        try self.init(path: path, owner: .current, willUpgrade: willUpgrade)
    }

    /// Opens a private in-memory database (tests, `replay` without `--save`).
    ///
    /// - Returns: A migrated, empty store.
    /// - Throws: ``GripStoreError/cannotOpen(path:sqliteCode:message:)`` if SQLite cannot start.
    public static func inMemory() throws(GripStoreError) -> RecordingStore {
        try RecordingStore(inMemoryWith: .current)
    }

    init(
        path: String, owner: ProcessOwner, willUpgrade: ((_ migrations: [String]) -> Void)? = nil
    ) throws(GripStoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: Self.configuration())
            // GRDB sets `synchronous = NORMAL` on the pool's writer after `prepareDatabase` has run (its WAL set-up),
            // which skips the fsync of each commit: a power cut could then lose every commit since the kernel last
            // wrote the WAL back, up to half a minute. The writer connection lives as long as the pool, so once is
            // enough (docs/storage.md, "Durability").
            try pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        } catch let error as DatabaseError {
            throw .cannotOpen(path: path, sqliteCode: error.resultCode.rawValue, message: error.message ?? "")
        } catch {
            throw .cannotOpen(path: path, sqliteCode: nil, message: String(describing: error))
        }
        try Self.migrate(pool, path: path, willUpgrade: willUpgrade)
        self.path = path
        self.writer = pool
        self.owner = owner
        self.recoveredOnOpen = try Self.recoverAbandoned(in: pool)
    }

    init(inMemoryWith owner: ProcessOwner) throws(GripStoreError) {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(configuration: Self.configuration())
        } catch {
            throw .cannotOpen(path: ":memory:", sqliteCode: nil, message: String(describing: error))
        }
        try Self.migrate(queue, path: ":memory:")
        self.path = nil
        self.writer = queue
        self.owner = owner
        self.recoveredOnOpen = []
    }

    /// The page cache each connection may keep (KiB).
    static let pageCacheKiB = 256

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(busyTimeout)
        configuration.journalMode = .wal
        configuration.label = "griptrack"
        configuration.prepareDatabase { db in
            // A new file gets 1 KiB pages: each live commit touches a handful of pages, and WAL writes each one
            // whole, so smaller pages write about a quarter of the bytes (docs/storage.md, "Bytes written"). Has no
            // effect on a file that already has pages.
            try db.execute(sql: "PRAGMA page_size = 1024")
            // WAL + FULL: each commit is fsynced, so "committed" means "survives a power cut".
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // At most `pageCacheKiB` of cached pages per connection instead of SQLite's 2 MiB: griptrackd keeps its
            // connections for months, and at the default its heap grew by 2.4 MiB in its first 13 minutes of
            // recording (docs/storage.md, "Memory"). A live commit touches a handful of pages at the right edge of
            // two B-trees, and a scan reads each page once; the OS page cache holds the file either way.
            try db.execute(sql: "PRAGMA cache_size = -\(pageCacheKiB)")
        }
        return configuration
    }

    /// The schema this build writes: the identifier of the newest migration (`--version` prints it).
    package static var schemaVersion: String { Migrations.migrator.migrations.last ?? "" }

    private static func migrate(
        _ writer: some DatabaseWriter, path: String, willUpgrade: ((_ migrations: [String]) -> Void)? = nil
    ) throws(GripStoreError) {
        let migrator = Migrations.migrator
        do {
            let (superseded, applied) = try writer.read { db in
                (try migrator.hasBeenSuperseded(db), try migrator.appliedIdentifiers(db))
            }
            if superseded { throw GripStoreError.schemaFromNewerVersion(path: path) }
            let pending = migrator.migrations.filter { !applied.contains($0) }
            if !applied.isEmpty && !pending.isEmpty { willUpgrade?(pending) }
            do {
                try migrator.migrate(writer)
            } catch {
                // Two processes opening a new file at once both see no migrations applied; the second then fails
                // on `CREATE TABLE`. Its second look sees the migrations done.
                try migrator.migrate(writer)
            }
        } catch let error as GripStoreError {
            throw error
        } catch let error as DatabaseError {
            throw .cannotOpen(path: path, sqliteCode: error.resultCode.rawValue, message: error.message ?? "")
        } catch {
            throw .cannotOpen(path: path, sqliteCode: nil, message: String(describing: error))
        }
    }

    // MARK: - Transactions

    /// Runs `body` in an IMMEDIATE transaction (the write lock is taken before anything is read).
    func writeImmediate<T>(_ operation: String, _ body: (Database) throws -> T) throws(GripStoreError) -> T {
        try Self.writeImmediate(writer, operation, body)
    }

    static func writeImmediate<T>(
        _ writer: any DatabaseWriter, _ operation: String, _ body: (Database) throws -> T
    ) throws(GripStoreError) -> T {
        try GripStoreError.wrapping(operation) {
            try writer.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                guard let result else { preconditionFailure("committed transaction without a result") }
                return result
            }
        }
    }

    /// Runs `body` on a read-only snapshot.
    func read<T>(_ operation: String, _ body: (Database) throws -> T) throws(GripStoreError) -> T {
        try GripStoreError.wrapping(operation) { try writer.read(body) }
    }

    // MARK: - Integrity

    /// Runs SQLite's `PRAGMA integrity_check`.
    ///
    /// - Returns: `["ok"]` for a sound database, otherwise one line per problem.
    /// - Throws: ``GripStoreError/sqlite(operation:code:extendedCode:message:)``.
    public func checkIntegrity() throws(GripStoreError) -> [String] {
        try read("check the database") { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }
}
