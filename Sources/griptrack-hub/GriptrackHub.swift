import ArgumentParser
import Foundation
import GripConfig
import GripHub
import GripRelease
import Logging
import ServiceLifecycle

@main
struct GriptrackHub: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "griptrack-hub",
        abstract: "Receive App Store Server Notifications and keep them for the account's Pis (docs/account.md).",
        discussion: """
            Runs beside PostgreSQL, behind a TLS reverse proxy. POST /appstore/v2/notifications takes the App Store's \
            V2 notifications ({"signedPayload": …}), verifies them as every Pi does ([app_store]: Apple's root, the \
            chain, bundle id, environment), stores each once (by notificationUUID) with the account whose UUID is its \
            appAccountToken, and answers 200 only after the commit, so the App Store retries anything not kept. \
            Refusals are 4xx with one log line; bodies over 64 KB and clients over [hub] requests_per_minute are \
            refused. GET /healthz answers 200 while the database answers. Settings: [hub] and [app_store] of the \
            configuration file (docs/config.md). SIGTERM or SIGINT stop it gracefully. Exits 5 for an invalid \
            configuration.
            """,
        version: GriptrackRelease.version
    )

    @Option(name: .long, help: ArgumentHelp(
        "Configuration file (TOML). Default: \(GriptrackConfig.defaultPath).", valueName: "path"))
    var config: String = GriptrackConfig.defaultPath

    func run() async throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = ProcessInfo.processInfo.environment["GRIPTRACK_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
            return handler
        }
        let logger = Logger(label: "griptrack-hub")
        let settings: HubSettings
        do {
            settings = try HubSettings.from(try GriptrackConfig.load(path: config, required: true))
        } catch {
            FileHandle.standardError.write(Data("griptrack-hub: invalid configuration: \(error)\n".utf8))
            throw ExitCode(5)
        }
        let server = HubServer(settings: settings, logger: logger)
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: server)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}
