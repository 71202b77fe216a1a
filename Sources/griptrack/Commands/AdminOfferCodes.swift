import ArgumentParser
import Foundation
import GripSync

extension Griptrack.Admin {
    /// `griptrack admin offer-codes import FILE.csv --offer NAME --expires DATE`.
    struct OfferCodes: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "offer-codes", abstract: "Manage the pool of offer codes referrals are rewarded from.",
            subcommands: [Import.self])
    }
}

extension Griptrack.Admin.OfferCodes {
    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Add App Store Connect offer codes (its CSV export) to the referral reward pool.",
            discussion: """
                Reads one code per line (the first field of each CSV row; a header and blank lines are skipped: a \
                code is 6 to 64 letters and digits). Codes already in the pool are left alone. An expired code is \
                never awarded. Referrers owed a reward (their referral completed while the pool was empty) get \
                theirs from the new codes at once, oldest first.
                """)

        @OptionGroup var options: AdminOptions

        @Argument(help: ArgumentHelp("The CSV file App Store Connect exported.", valueName: "file"))
        var file: String

        @Option(help: ArgumentHelp("The offer's name in App Store Connect.", valueName: "name"))
        var offer: String

        @Option(help: ArgumentHelp("When the codes expire: YYYY-MM-DD (UTC midnight) or ISO 8601.", valueName: "date"))
        var expires: DateArgument

        func run() async throws {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                throw CLIExit.invalidInput.fail("cannot read \(file) as UTF-8 text")
            }
            let codes = Self.codes(in: text)
            guard !codes.isEmpty else { throw CLIExit.invalidInput.fail("\(file) holds no offer codes") }
            guard expires.date > Date() else {
                throw CLIExit.usage.fail("--expires \(Format.day(expires.date)) is in the past; give the codes' expiry")
            }
            let result: OperatorDatabase.OfferCodeImport
            do {
                result = try await options.database().importOfferCodes(codes, offer: offer, expires: expires.date)
            } catch let error as SyncError {
                throw SyncSetup.exit(error, operator: true)
            }
            if options.json {
                try printJSON(["read": codes.count, "added": result.added, "awarded": result.awarded])
                return
            }
            print("Read \(codes.count) codes from \(file); \(result.added) added to the pool (\(codes.count - result.added) were there).")
            if result.awarded > 0 {
                print("\(result.awarded) of them went at once to referrers owed a reward (their referral completed while the pool was empty).")
            }
        }

        /// The first field of each line that looks like a code.
        static func codes(in text: String) -> [String] {
            var seen = Set<String>()
            return text.split(whereSeparator: \.isNewline).compactMap { line in
                let field = line.split(separator: ",", maxSplits: 1).first.map {
                    $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" \t"))
                } ?? ""
                guard (6...64).contains(field.count), field.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }),
                    seen.insert(field).inserted
                else { return nil }
                return field
            }
        }
    }
}
