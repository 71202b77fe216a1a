import Foundation
import GripStore

/// Access as one database's entitlement state decides it: the resolver's answer and the free plan's numbers.
struct Plan: Equatable {
    var isPro: Bool
    /// `pro` or `free`.
    var tier: String
    /// Which rule decided (`bypass`, `manualOverride`, `subscription`, …, `none`).
    var source: String
    /// The resolver's sentence.
    var reason: String
    var expires: Date?
    var stored: Int
    var limit: Int
    /// `Free: 3 of 5 recordings stored` on the free plan.
    var freeStorage: String?
    /// "App Store subscription, verified, received through the account …" when a sync brought Pro (``ProProvenance``).
    var provenance: String?
    /// The free plan's warning at one slot left or none (`FreeTierPolicy.warning`), printed as it is.
    var warning: String?

    init(_ status: AccessStatus, provenance: String? = nil) {
        isPro = status.access.isPro
        tier = status.access.tier.rawValue
        source = status.access.source.rawValue
        reason = status.access.reason
        expires = status.access.expires
        stored = status.storedRecordings
        limit = status.freeLimit
        freeStorage = status.freeStorage
        self.provenance = provenance
        warning = status.freeWarning
    }

    init(
        isPro: Bool, tier: String, source: String, reason: String, expires: Date?, stored: Int, limit: Int,
        freeStorage: String?, provenance: String? = nil, warning: String? = nil
    ) {
        self.isPro = isPro
        self.tier = tier
        self.source = source
        self.reason = reason
        self.expires = expires
        self.stored = stored
        self.limit = limit
        self.freeStorage = freeStorage
        self.provenance = provenance
        self.warning = warning
    }

    /// How many of the newest recordings this plan shows: the free limit, or all with Pro.
    var visibleLimit: Int? { isPro ? nil : limit }

    /// Exits 3 unless Pro applies, naming the feature and how to get Pro.
    func requirePro(_ feature: String) throws {
        guard isPro else {
            throw CLIExit.proRequired.fail(
                "\(feature) needs Pro (\(reason)). Get Pro with an App Store subscription "
                    + "(`griptrack pro import FILE`) or a grant from your administrator (`griptrack pro grant`); "
                    + "`griptrack pro status` shows your plan.")
        }
    }
}
