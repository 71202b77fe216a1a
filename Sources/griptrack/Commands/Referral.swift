import ArgumentParser
import Foundation
import GripSync

extension Griptrack {
    /// `griptrack referral`: the account's referral code and rewards (docs/account.md, "Referrals").
    struct Referral: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "referral",
            abstract: "Show the account's referral code and rewards, or redeem another account's code.",
            discussion: """
                Uses [sync] (the account's own role). A referral completes when the referred account redeems an \
                offer code in the app; its referrer then gets one offer code from the operator's pool.
                """,
            subcommands: [Status.self, Redeem.self])
    }
}

extension Griptrack.Referral {
    /// `griptrack referral status [--json]`.
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show this account's code, who referred it, whom it referred and the offer codes it earned.")

        @OptionGroup var common: CommonOptions

        func run() async throws {
            let client = try SyncSetup.client(try common.loadConfig())
            let status: ReferralStatus
            do {
                status = try await client.referralStatus()
            } catch {
                throw SyncSetup.exit(error)
            }
            if common.json {
                try printJSON(status)
                return
            }
            print("Account \(status.account): referral code \(status.code ?? "none (ask the operator)")")
            if let referrer = status.referredBy { print("Referred by \(referrer).") }
            if status.referrals.isEmpty { print("No referrals yet.") }
            for referral in status.referrals {
                let state = referral.completedAt == nil
                    ? "pending (completes when it redeems an offer code)"
                    : referral.rewardCode.map { "completed, your offer code: \($0)" } ?? "completed, offer code owed"
                print("  \(referral.account): \(state)")
            }
        }
    }

    /// `griptrack referral redeem CODE`.
    struct Redeem: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "redeem",
            abstract: "Redeem another account's referral code (GRIP-XXXX) for this account; once per account.")

        @OptionGroup var common: CommonOptions

        @Argument(help: ArgumentHelp("The code, e.g. GRIP-7K2Q.", valueName: "code"))
        var code: String

        func run() async throws {
            let client = try SyncSetup.client(try common.loadConfig())
            let result: ReferralRedemption
            do {
                result = try await client.redeemReferral(code)
            } catch {
                throw SyncSetup.exit(error)
            }
            switch result {
            case .redeemed:
                print("Redeemed \(code.uppercased()): it completes when this account redeems an offer code in the app.")
            case .unknownCode:
                throw CLIExit.invalidInput.fail("no account has the referral code \(code.uppercased()); check its spelling")
            case .ownCode:
                throw CLIExit.invalidInput.fail("\(code.uppercased()) is this account's own code; redeem someone else's")
            case .alreadyReferred:
                throw CLIExit.error.fail("this account has already redeemed a referral code (one per account)")
            case .noAccount:
                throw CLIExit.error.fail(
                    "the role in [sync] url belongs to no account; the operator creates one with `griptrack admin account create`")
            }
        }
    }
}
