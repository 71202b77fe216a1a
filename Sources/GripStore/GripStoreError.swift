import Foundation
import GRDB

/// Everything the store can fail with. The description says what happened and what to do; the SQLite cause stays
/// in associated values for logs.
public enum GripStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The database file could not be opened or migrated.
    case cannotOpen(path: String, sqliteCode: Int32?, message: String)
    /// The database was written by a newer griptrack (it has migrations this version does not know).
    case schemaFromNewerVersion(path: String)
    /// The admission policy refused a new recording (the free-tier limit); `reason` is its text, kept verbatim.
    case refused(reason: String, storedRecordings: Int)
    /// No recording has this id (never existed, or deleted).
    case recordingNotFound(RecordingID)
    /// The operation needs a recording in state `recording`, and this one is not.
    case recordingNotInProgress(RecordingID, state: RecordingState)
    /// The operation needs a finished recording, and this one is still being recorded.
    case recordingInProgress(RecordingID)
    /// A stored sample chunk cannot be decoded.
    case corruptSampleChunk(RecordingID, sequence: Int, detail: String)
    /// A capture or import dates its recording outside 2000–2100 (``RecordingStore/plausibleDates``): a clock that
    /// was wrong, or a damaged file. Nothing was stored: such a date would make the row unreadable later.
    case implausibleDate(Date, what: String)
    /// SQLite failed; `code` and `extendedCode` are SQLite result codes, `operation` what the store was doing.
    case sqlite(operation: String, code: Int32, extendedCode: Int32, message: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let code, let message):
            let cause = code.map { "SQLite error \($0): \(message)" } ?? message
            return "Could not open the database at \(path) (\(cause)). "
                + "Check that the directory exists and is writable by this user, or choose another file with --db."
        case .schemaFromNewerVersion(let path):
            return "The database at \(path) was written by a newer griptrack. "
                + "Upgrade griptrack, or use another file with --db."
        case .refused(let reason, _):
            return reason
        case .recordingNotFound(let id):
            return "No recording \(id). List the stored recordings with `griptrack list`."
        case .recordingNotInProgress(let id, let state):
            return "Recording \(id) is \(state.rawValue), not being recorded, so it cannot take samples or be "
                + "finished. Start a new recording instead."
        case .recordingInProgress(let id):
            return "Recording \(id) is still being recorded. Stop it first (`griptrack stop`)."
        case .corruptSampleChunk(let id, let sequence, let detail):
            return "Sample chunk \(sequence) of recording \(id) is damaged (\(detail)). "
                + "Run `griptrack status` to check the database, and restore it from a backup if it is damaged."
        case .implausibleDate(let date, let what):
            let seconds = date.timeIntervalSince1970
            return "The recording's \(what) (\(seconds.isFinite ? "\(Int64(exactly: seconds.rounded()) ?? 0) s since 1970" : "not a time")) "
                + "is outside 2000–2100: the clock that dated it was wrong, or the file is damaged. Nothing was stored."
        case .sqlite(let operation, let code, let extendedCode, let message):
            let cause = "SQLite error \(code)/\(extendedCode): \(message)"
            switch code {
            case 5, 6:  // SQLITE_BUSY, SQLITE_LOCKED
                return "Could not \(operation): another griptrack process kept the database locked (\(cause)). "
                    + "Try again; if it persists, look for a stuck griptrack process."
            case 8, 23:  // SQLITE_READONLY, SQLITE_AUTH
                return "Could not \(operation): the database is read-only for this user (\(cause)). "
                    + "Run as a user that may write it (group griptrack), or go through the daemon."
            case 13:  // SQLITE_FULL
                return "Could not \(operation): the disk is full (\(cause)). Free some space and try again."
            case 10, 11, 26:  // SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_NOTADB
                return "Could not \(operation): the database file is damaged or unreadable (\(cause)). "
                    + "Restore it from a backup, or move it aside to start a new one."
            default:
                return "Could not \(operation) (\(cause)). Check the database file and try again."
            }
        }
    }
}

extension GripStoreError {
    /// Runs `body`, turning GRDB's errors into ``GripStoreError/sqlite(operation:code:extendedCode:message:)``.
    static func wrapping<T>(_ operation: String, _ body: () throws -> T) throws(GripStoreError) -> T {
        do {
            return try body()
        } catch let error as GripStoreError {
            throw error
        } catch let error as DatabaseError {
            throw .sqlite(
                operation: operation,
                code: error.resultCode.rawValue,
                extendedCode: error.extendedResultCode.rawValue,
                message: error.message ?? "no message"
            )
        } catch {
            throw .sqlite(operation: operation, code: 1, extendedCode: 1, message: String(describing: error))
        }
    }
}
