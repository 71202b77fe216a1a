import Foundation

extension GriptrackConfig {
    /// `[hub] password_file`, resolved against the configuration file's directory.
    package var hubPasswordPath: String? { hub.passwordFile.map(resolve) }
    /// `[hub] ca_file`, resolved against the configuration file's directory.
    package var hubCAPath: String? { hub.caFile.map(resolve) }

    /// The hub's PostgreSQL password: the first line of `[hub] password_file`, else the URL's own.
    ///
    /// - Returns: The password, or `nil` to log in without one.
    /// - Throws: ``ConfigError`` naming `hub.password_file` when the file is missing, empty, too large, readable by
    ///   others or unreadable.
    package func hubPassword() throws(ConfigError) -> String? {
        guard let path = hubPasswordPath else { return hub.url?.password }
        try Self.checkPrivate(path, file: self.path ?? "(defaults)", line: nil, key: "hub.password_file")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
            let password = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first,
            !password.isEmpty
        else {
            throw ConfigError(
                file: self.path ?? "(defaults)", line: nil, key: "hub.password_file",
                problem: "cannot read a password from the first line of \(path); write it there, readable by the "
                    + "user griptrack-hub runs as")
        }
        return String(password)
    }

    func checkHubFiles(lines: KeyLines) throws(ConfigError) {
        guard let path = hubPasswordPath else { return }
        try Self.checkPrivate(
            path, file: self.path ?? "(defaults)", line: lines.line(section: "hub", key: "password_file"),
            key: "hub.password_file")
    }
}
