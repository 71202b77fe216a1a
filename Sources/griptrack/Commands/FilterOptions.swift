import ArgumentParser
import GripAnalysis
import GripStore

/// `--athlete`, `--hand`, `--grip`: which of this machine's recordings `list` and `trends` cover.
struct FilterOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only this athlete's recordings (any case).", valueName: "name"))
    var athlete: String?

    @Option(help: ArgumentHelp("Only recordings with this hand: left, right or both.", valueName: "hand"))
    var hand: Hand?

    @Option(help: ArgumentHelp("Only recordings with this grip, e.g. \"half crimp\" (any case).", valueName: "grip"))
    var grip: String?

    var filter: RecordingFilter { RecordingFilter(athlete: athlete, hand: hand, grip: grip) }

    /// The filters read this machine's store; `--everywhere` reads the sync server's, which they do not reach.
    func check(everywhere: Bool) throws {
        if everywhere && !filter.isEmpty {
            throw ValidationError("--athlete, --hand and --grip filter this machine's recordings; drop --everywhere.")
        }
    }
}
