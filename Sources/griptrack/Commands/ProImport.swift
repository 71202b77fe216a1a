import ArgumentParser
import Foundation
import GripEntitlements
import GripProtocol
import GripStore

extension Griptrack.Pro {
    /// `griptrack pro import`: verifies signed App Store data and stores it.
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Verify App Store signed data and store it (a transaction, renewal info or V2 notification).",
            discussion: """
                Verifies as `pro verify` does, then applies it with replay protection: data older than what is \
                stored for the same subscription, and notifications seen before, change nothing. Exits 5 when \
                the data is invalid (nothing is stored).
                """
        )

        @OptionGroup var common: CommonOptions
        @OptionGroup var place: SocketOption

        @Argument(help: ArgumentHelp("The signed data, or - for standard input.", valueName: "file"))
        var file: String

        @Option(name: .customLong("as"), help: "What the data is: auto, transaction, renewal-info or notification.")
        var kind: SignedDataImportKind = .auto

        func run() async throws {
            let jws = try SignedDataInput.read(file)
            let library = try LibraryChoice.open(common: common, socket: place)
            if let daemon = library as? DaemonLibrary {
                // griptrackd verifies the data itself with its own [app_store] settings, then stores it.
                let reply = try daemon.importSigned(jws, kind: kind)
                if common.json {
                    try printJSON(ImportJSON(reply, database: library.database))
                    return
                }
                for event in reply.events {
                    let name = SignedDataKind(rawValue: event.kind).map(SignedDataInput.name) ?? event.kind
                    print("\(name.capitalizedFirst)\(event.originalTransactionId.map { " \($0)" } ?? ""): "
                          + ImportJSON.describe(daemonDisposition: event.disposition))
                }
                print(reply.reason)
                print("(imported into \(library.database.text))")
                return
            }
            let session = try common.session()
            let now = Date()
            let verified: VerifiedSignedData
            switch try await SignedDataInput.verify(jws, as: kind, config: session.config, now: now) {
            case .success(let value): verified = value
            case .failure(let failure):
                throw CLIExit.invalidInput.fail(SignedDataInput.message(failure, config: session.config))
            }
            let result = try storeCall { () throws(GripStoreError) in
                try session.store.importVerified(verified, jws: jws, context: session.context, actor: currentUser, now: now)
            }
            if common.json {
                try printJSON(ImportJSON(result, database: library.database))
                return
            }
            for event in result.events {
                print("\(SignedDataInput.name(event.kind).capitalizedFirst)\(event.originalTransactionId.map { " \($0)" } ?? ""): "
                      + Self.describe(event.disposition))
            }
            print(result.after.reason)
        }

        static func describe(_ disposition: ApplyEvent.Disposition) -> String {
            switch disposition {
            case .applied: "stored"
            case .replayIgnored: "ignored: not newer than what is stored for this subscription (a replay or a duplicate)"
            case .duplicateNotification: "ignored: this notification was already applied"
            case .tooOldToGrant: "ignored: signed more than 7 days ago, too old to grant Pro on its own"
            case .ignored(let reason): "ignored: \(reason)"
            }
        }
    }
}

extension String {
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}

/// `griptrack pro import --json`.
struct ImportJSON: Encodable {
    struct Event: Encodable {
        var kind: String
        var originalTransactionId: String?
        var disposition: String
    }

    var events: [Event]
    var before: ProReason
    var after: ProReason
    var database: DatabaseChoice

    struct ProReason: Encodable {
        var tier: String
        var reason: String
    }

    init(_ reply: DaemonMessage.ImportReply, database: DatabaseChoice) {
        events = reply.events.map {
            Event(kind: $0.kind, originalTransactionId: $0.originalTransactionId,
                  disposition: Self.describe(daemonDisposition: $0.disposition))
        }
        before = ProReason(tier: reply.before.hasPrefix("Pro") ? "pro" : "free", reason: reply.before)
        after = ProReason(tier: reply.pro ? "pro" : "free", reason: reply.reason)
        self.database = database
    }

    /// The text of a disposition griptrackd reports (`applied`, `replay_ignored`, …), as `describe` words it.
    static func describe(daemonDisposition code: String) -> String {
        switch code {
        case "applied": Griptrack.Pro.Import.describe(.applied)
        case "replay_ignored": Griptrack.Pro.Import.describe(.replayIgnored)
        case "duplicate_notification": Griptrack.Pro.Import.describe(.duplicateNotification)
        case "too_old_to_grant": Griptrack.Pro.Import.describe(.tooOldToGrant)
        default: code
        }
    }

    init(_ result: SignedDataImport, database: DatabaseChoice) {
        self.database = database
        events = result.events.map {
            Event(kind: $0.kind.rawValue, originalTransactionId: $0.originalTransactionId,
                  disposition: Griptrack.Pro.Import.describe($0.disposition))
        }
        before = ProReason(tier: result.before.tier.rawValue, reason: result.before.reason)
        after = ProReason(tier: result.after.tier.rawValue, reason: result.after.reason)
    }
}
