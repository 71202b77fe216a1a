import Foundation
import Testing

import GripConfig

/// `[sync]`: accepted values, errors naming file, line and key, and the password file's permissions.
@Suite("Sync configuration")
struct SyncConfigTests {
    @Test("a full [sync] section is read, the URL split into its parts")
    func goodValues() throws {
        let text = """
            [sync]
            url = "postgres://griptrack@db.example.net:6543/climbing?sslmode=require"
            ca_file = "sync-ca.pem"
            device_name = "gym-board-2"
            account = "crag-gym"
            interval_seconds = 30
            """
        let config = try GriptrackConfig.parse(text, file: "g.toml")
        #expect(config.sync.url == SyncURL(
            user: "griptrack", password: nil, host: "db.example.net", port: 6543, database: "climbing", sslMode: "require"))
        #expect(config.sync.caFile == "sync-ca.pem")
        #expect(config.sync.deviceName == "gym-board-2")
        #expect(config.sync.account == "crag-gym")
        #expect(config.sync.intervalSeconds == 30)
        let verified = try GriptrackConfig.parse(
            "[sync]\nurl = \"postgres://pi@db.example.net/griptrack?sslmode=verify-full\"\n", file: "g.toml")
        #expect(verified.sync.url?.sslMode == "verify-full")
        let unnamed = try GriptrackConfig.parse("[sync]\nurl = \"postgres://pi@db.example.net/griptrack\"\n", file: "g.toml")
        #expect(unnamed.sync.url?.sslMode == nil)
        let socket = try GriptrackConfig.parse(
            "[sync]\nurl = \"postgres://pi@localhost/griptrack?host=/run/postgresql&sslmode=disable\"\n", file: "g.toml")
        #expect(socket.sync.url?.host == "/run/postgresql")
        #expect(socket.sync.url?.port == 5432)
        #expect(GriptrackConfig().sync.url == nil)
    }

    static let badCases: [DeviceConfigTests.BadCase] = [
        .init(
            text: "[sync]\naccount = \"a\"\nurl = \"mysql://x@h/db\"\n",
            message: "g.toml:3: sync.url: expected a postgres:// URL, e.g. \"postgres://griptrack@db.example.net:5432/griptrack?sslmode=require\", got \"mysql://x@h/db\""),
        .init(
            text: "[sync]\nurl = \"postgres://u@h/db?sslmode=allow\"\n",
            message: "g.toml:2: sync.url: sslmode must be disable, prefer, require or verify-full, got \"allow\""),
        .init(
            text: "[sync]\nurl = \"postgres://u@h/\"\n",
            message: "g.toml:2: sync.url: the URL names no database (the path after the host), e.g. \"postgres://griptrack@db.example.net:5432/griptrack?sslmode=require\""),
        .init(
            text: "[sync]\ninterval_seconds = 0\n",
            message: "g.toml:2: sync.interval_seconds: expected a number of seconds ≥ 1, e.g. 60, got the integer 0"),
        .init(
            text: "[sync]\ndevice_name = \" pi\"\n",
            message: "g.toml:2: sync.device_name: expected this device's name, e.g. \"gym-board-2\" (1 to 64 characters, no surrounding spaces), got \" pi\""),
        .init(
            text: "[sync]\npassword = \"hunter2\"\n",
            message: "g.toml:2: sync.password: unknown key; [sync] knows url, ca_file, password_file, device_name, account, interval_seconds, operator_key"),
    ]

    @Test("a bad [sync] value is an error naming the file, line and key", arguments: badCases)
    func badValue(_ test: DeviceConfigTests.BadCase) {
        #expect {
            _ = try GriptrackConfig.parse(test.text, file: "g.toml")
        } throws: { error in
            "\(error)" == test.message
        }
    }

    @Test("a password file readable by group or others is refused when the file is loaded; mode 600 is read")
    func passwordFilePermissions() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-sync-config-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("sync-password").path
        try Data("s3cret\n".utf8).write(to: URL(fileURLWithPath: secret))
        let configPath = directory.appendingPathComponent("griptrack.toml").path
        try Data("[sync]\naccount = \"a\"\npassword_file = \"sync-password\"\n".utf8)
            .write(to: URL(fileURLWithPath: configPath))

        chmod(secret, 0o644)
        #expect {
            _ = try GriptrackConfig.load(path: configPath, required: true)
        } throws: { error in
            "\(error)" == "\(configPath):3: sync.password_file: \(secret) is readable by its group or by others (mode 644); make it private with `chmod 600 \(secret)`"
        }
        chmod(secret, 0o600)
        let config = try GriptrackConfig.load(path: configPath, required: true)
        #expect(try config.syncPassword() == "s3cret")
        // Written on Windows: the line end is not part of the password.
        try Data("s3cret\r\n".utf8).write(to: URL(fileURLWithPath: secret))
        #expect(try config.syncPassword() == "s3cret")
    }

    @Test("an empty password file, or one far bigger than a password, is refused naming the key")
    func passwordFileSize() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griptrack-sync-config-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let secret = directory.appendingPathComponent("sync-password").path
        let configPath = directory.appendingPathComponent("griptrack.toml").path
        try Data("[sync]\naccount = \"a\"\npassword_file = \"sync-password\"\n".utf8)
            .write(to: URL(fileURLWithPath: configPath))
        for (content, problem) in [
            (Data(), "\(secret) is empty; write the password on its first line (or remove password_file to log in without one)"),
            (Data(repeating: 0x61, count: 20_000_000), "\(secret) is 20000000 bytes, more than a password file holds (at most 4096); name the file that holds only the password"),
        ] {
            try content.write(to: URL(fileURLWithPath: secret))
            chmod(secret, 0o600)
            #expect {
                _ = try GriptrackConfig.load(path: configPath, required: true)
            } throws: { error in
                "\(error)" == "\(configPath):3: sync.password_file: \(problem)"
            }
        }
        // A first line that is empty (a stray line end) is no password either.
        try Data("\nsecond\n".utf8).write(to: URL(fileURLWithPath: secret))
        chmod(secret, 0o600)
        let config = try GriptrackConfig.load(path: configPath, required: true)
        #expect(throws: ConfigError.self) { try config.syncPassword() }
    }
}
