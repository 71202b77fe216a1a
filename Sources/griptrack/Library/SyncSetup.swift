import ArgumentParser
import Foundation
import GripAnalysis
import GripConfig
import GripStore
import GripSync
import Logging

/// `[sync]` of the configuration → the sync client's settings (docs/sync.md, "Configuration").
enum SyncSetup {
    /// The client for this configuration. Exits 5 naming the key when `[sync]` lacks `url` or `account`, or the
    /// password file cannot be used.
    static func client(_ config: GriptrackConfig) throws -> SyncClient {
        var logger = Logger(label: "griptrack.sync")
        logger.logLevel = .warning
        let sync: SyncConfiguration?
        do {
            sync = try SyncConfiguration.from(config, logger: logger)
        } catch {
            throw CLIExit.invalidInput.fail("invalid configuration: \(error)")
        }
        guard let sync else {
            throw CLIExit.invalidInput.fail(
                "\(SyncError.notConfigured(missing: "url")) (\(config.path ?? GriptrackConfig.defaultPath))")
        }
        return sync.client
    }

    /// One of the account's recordings from the sync server (`show`/`export --everywhere`), after the personal
    /// database's plan allowed sync. Exits 1 when no recording or several start with `reference`.
    static func recordingEverywhere(
        _ reference: RecordingReference, common: CommonOptions, what: String
    ) async throws -> RemoteRecordingDetail {
        let session = try common.session()
        try session.requirePro("\(what) (sync)")
        let client = try SyncSetup.client(session.config)
        let lookup: RemoteLookup
        do {
            lookup = try await client.recordingEverywhere(matching: reference.text)
        } catch {
            throw SyncSetup.exit(error)
        }
        switch lookup {
        case .found(let detail):
            return detail
        case .notFound:
            throw CLIExit.error.fail(
                "no recording of account \(client.settings.account) on the sync server has a UUID starting with "
                    + "'\(reference.text)'; `griptrack list --everywhere` shows them")
        case .ambiguous(let matches):
            let names = matches.map { "\($0.uuid.uuidString.lowercased()) (\($0.deviceName))" }.joined(separator: ", ")
            throw CLIExit.error.fail("'\(reference.text)' starts several recordings' UUIDs: \(names); give more of it")
        }
    }

    /// Every recording of the account on the sync server with its efforts, oldest first (`stats`/`trends
    /// --everywhere`), after the personal database's plan allowed sync.
    static func historyEverywhere(
        common: CommonOptions, what: String
    ) async throws -> (account: String, history: [(recording: RemoteRecording, efforts: [StoredEffort])]) {
        let session = try common.session()
        try session.requirePro("\(what) (sync)")
        let client = try SyncSetup.client(session.config)
        do {
            return (client.settings.account, try await client.historyEverywhere())
        } catch {
            throw SyncSetup.exit(error)
        }
    }

    /// Every recording of the account on the sync server with its efforts and samples, oldest first (`trends
    /// --everywhere`'s figures per athlete × hand × grip × protocol), after the personal database's plan allowed sync.
    static func detailedHistoryEverywhere(
        common: CommonOptions, what: String
    ) async throws -> (account: String, history: [RemoteRecordingDetail]) {
        let session = try common.session()
        try session.requirePro("\(what) (sync)")
        let client = try SyncSetup.client(session.config)
        do {
            return (client.settings.account, try await client.detailedHistoryEverywhere())
        } catch {
            throw SyncSetup.exit(error)
        }
    }

    /// The exit for a sync failure: 3 when Pro is missing, 1 otherwise (the outbox is kept either way).
    /// - Parameter operator: An operator's command (`admin …`): its message says it changed nothing, not that an
    ///   outbox is kept.
    static func exit(_ error: SyncError, operator: Bool = false) -> ExitCode {
        let message = `operator` ? error.operatorDescription : error.description
        return switch error {
        case .proRequired: CLIExit.proRequired.fail(message)
        case .notConfigured, .tls: CLIExit.invalidInput.fail(message)
        default: CLIExit.error.fail(message)
        }
    }
}

extension RemoteRecording {
    /// The recording as the analysis sees it (wall-clock µs span, like the store's history), for trends.
    func analysed(efforts: [StoredEffort]) -> AnalysedRecording {
        let startMicros = Int64((startedAt.timeIntervalSince1970 * 1_000_000).rounded())
        let endMicros = endedAt.map { Int64(($0.timeIntervalSince1970 * 1_000_000).rounded()) } ?? startMicros
        return AnalysedRecording(
            id: RecordingID(rawValue: 0), startedAt: startedAt,
            recording: Recording(
                startMicros: startMicros, endMicros: endMicros, efforts: efforts.map(Effort.init),
                falseStartsDropped: 0))
    }

    /// The first 8 hex digits of the UUID: what `list --everywhere` shows and `show --everywhere` takes.
    var shortID: String { String(uuid.uuidString.lowercased().prefix(8)) }

    /// The server's row in the shape the local commands print (id 0: it has no id on this device).
    var localRow: RecordingRow {
        RecordingRow(
            id: RecordingID(rawValue: 0), uuid: uuid, startedAt: startedAt, endedAt: endedAt, device: device,
            profile: profile, hand: hand.flatMap(Hand.init(rawValue:)), label: label,
            state: RecordingState(rawValue: state) ?? .complete, maxKilograms: maxKilograms,
            averageKilograms: averageKilograms, sampleCount: sampleCount, effortCount: effortCount, setup: setup)
    }
}
