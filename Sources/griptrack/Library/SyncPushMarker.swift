import Foundation

/// "A push of this database is under way, since when, by which process", for `griptrack sync status`.
///
/// A file beside the database (`griptrack.db.sync-push`: the process id and the start in Unix seconds), written
/// when `griptrack sync` starts sending and removed when it ends. The store's sync status keeps only outcomes;
/// this says what is happening now, so a push that waits on a slow server is not shown as "Last error: none" and
/// nothing else. A process killed mid-push leaves the file behind: a marker whose process is gone is ignored.
struct SyncPushMarker {
    let path: String

    /// The marker of the database at `databasePath`.
    init(databasePath: String) {
        path = databasePath + ".sync-push"
    }

    /// Marks a push by this process as started now.
    func begin(at date: Date = Date()) {
        let text = "\(getpid()) \(date.timeIntervalSince1970)\n"
        _ = FileManager.default.createFile(
            atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600])
    }

    /// Removes the marker (the push ended, either way).
    func end() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// When the push under way started, or `nil` when none is (no marker, an unreadable one, or its process is gone).
    func since() -> Date? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let parts = text.split(whereSeparator: \.isWhitespace)
        guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0, let seconds = Double(parts[1]), seconds.isFinite
        else { return nil }
        // kill(pid, 0): the process exists (EPERM: it does, as another user).
        guard kill(pid, 0) == 0 || errno == EPERM else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}
