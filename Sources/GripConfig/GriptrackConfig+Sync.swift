import Foundation

extension GriptrackConfig {
    /// The `[sync] password_file`, resolved against the configuration file's directory.
    package var syncPasswordPath: String? { sync.passwordFile.map(resolve) }
    /// The `[sync] ca_file`, resolved against the configuration file's directory.
    package var syncCAPath: String? { sync.caFile.map(resolve) }

    /// The password from `password_file` (its first line), else the URL's, else none.
    ///
    /// - Returns: The password.
    /// - Throws: ``ConfigError`` naming `sync.password_file` when the file is unreadable or readable by others.
    package func syncPassword() throws(ConfigError) -> String? {
        guard let path = syncPasswordPath else { return sync.url?.password }
        try Self.checkPrivate(path, file: self.path ?? "(defaults)", line: nil, key: "sync.password_file")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw ConfigError(
                file: self.path ?? "(defaults)", line: nil, key: "sync.password_file",
                problem: "cannot read \(path); it must be readable by the user griptrack runs as")
        }
        // The first line, without its line end: "\n" or "\r\n" (one Character, which a split on "\n" would keep).
        let password = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !password.isEmpty else {
            throw ConfigError(
                file: self.path ?? "(defaults)", line: nil, key: "sync.password_file",
                problem: "the first line of \(path) is empty; write the password on it (or remove password_file to "
                    + "log in without one)")
        }
        return password
    }

    /// The largest `password_file` read: a password is one line; a bigger file is the wrong file.
    package static let passwordFileLimit = 4096

    /// Refuses a `password_file` that is missing or that the group or others may read, at load time (exit 5, with
    /// the key's line), so a leaked secret is caught before the first sync.
    func checkSyncFiles(lines: KeyLines) throws(ConfigError) {
        guard let path = syncPasswordPath else { return }
        try Self.checkPrivate(
            path, file: self.path ?? "(defaults)", line: lines.line(section: "sync", key: "password_file"),
            key: "sync.password_file")
    }

    /// Refuses a password file that is missing, empty, too big, or readable by its group or others: the one rule
    /// for every `password_file` (`[sync]`, `[mqtt]`), reported under `key`.
    static func checkPrivate(_ path: String, file: String, line: Int?, key: String) throws(ConfigError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ConfigError(
                file: file, line: line, key: key,
                problem: "\(path) does not exist or cannot be read (\(String(cString: strerror(errno))))")
        }
        guard info.st_size > 0 else {
            throw ConfigError(
                file: file, line: line, key: key,
                problem: "\(path) is empty; write the password on its first line (or remove password_file to log in "
                    + "without one)")
        }
        guard info.st_size <= passwordFileLimit else {
            throw ConfigError(
                file: file, line: line, key: key,
                problem: "\(path) is \(info.st_size) bytes, more than a password file holds (at most "
                    + "\(passwordFileLimit)); name the file that holds only the password")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw ConfigError(
                file: file, line: line, key: key,
                problem: "\(path) is readable by its group or by others (mode \(String(info.st_mode & 0o777, radix: 8))); "
                    + "make it private with `chmod 600 \(path)`")
        }
    }

    func resolve(_ file: String) -> String {
        guard !file.hasPrefix("/"), let path else { return file }
        return URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(file).path
    }
}
