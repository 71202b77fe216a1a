/// Which Progressor-protocol device an advertisement most likely is: the Tindeq Progressor itself or one of the
/// open-hardware clones that speak its protocol (`docs/devices.md`, "Progressor clones").
///
/// All of them go through the one `progressor` profile; what differs is tolerated there (a bare name, the service
/// UUID missing from the advertisement, no control point, a device clock that does not restart at START, extra
/// response codes, one-byte commands). The name is the only thing BlueZ shows that tells them apart, and only for the
/// clones' default names: a Hangman or Crimpdeq built with another name reads as a Tindeq.
public enum ProgressorClone: String, Sendable, CaseIterable {
    /// Tindeq's device, or a clone named like one (`Progressor_` and digits).
    case tindeq
    /// kesyog/hangman firmware, default name `Progressor_1234`.
    case hangman
    /// crimpdeq/crimpdeq-firmware, default name `Progressor_7125`.
    case crimpdeq
    /// jvasilakes/mito in its Tindeq mode: exactly `Progressor`, no control point, µs since boot.
    case mito
    /// FilMarini/bigbanger, default name `Progressor_BB` (in the scan response).
    case bigBanger

    /// Human name for `griptrack devices --scan`.
    public var name: String {
        switch self {
        case .tindeq: "Tindeq Progressor (or a clone named like one)"
        case .hangman: "Hangman (kesyog/hangman, default name)"
        case .crimpdeq: "Crimpdeq (crimpdeq/crimpdeq-firmware, default name)"
        case .mito: "Mito (jvasilakes/mito, Tindeq mode)"
        case .bigBanger: "BigBanger (FilMarini/bigbanger)"
        }
    }

    /// The variant a Progressor-protocol device's advertised name shows; nil for a name that is not one.
    public static func identify(name: String?) -> ProgressorClone? {
        guard let name, name.hasPrefix("Progressor") else { return nil }
        switch name {
        case "Progressor": return .mito
        case "Progressor_1234": return .hangman
        case "Progressor_7125": return .crimpdeq
        case "Progressor_BB": return .bigBanger
        default: return .tindeq
        }
    }
}
