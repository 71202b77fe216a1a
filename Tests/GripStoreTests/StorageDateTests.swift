import Foundation
import GRDB
import Testing

@testable import GripStore

/// The recorder's dates, written without Foundation's DateFormatter, must be GRDB's text exactly: rows written
/// either way are compared and sorted as text (`ORDER BY startedAt`), and read back by GRDB.
@Suite("Stored dates")
struct StorageDateTests {
    static func grdbText(_ date: Date) -> String? {
        String.fromDatabaseValue(date.databaseValue)
    }

    @Test("the same text as GRDB's DateFormatter: leap days, the epoch's edges, rounded milliseconds, far years")
    func sameTextAsGRDB() throws {
        let fixed: [Double] = [
            0, -0.001, -1, 0.0009, 0.9999, 951_782_400.5,  // 2000-02-29 00:00:00.500
            1_700_000_000.123_456, 4_102_444_799.999, -2_208_988_800,  // 2099-12-31 23:59:59.999, 1900-01-01
            253_402_300_799.999, 253_402_300_799.9996,  // 9999-12-31, and a date that rounds into 10000
            -1_919_050_974.807_500_1,  // exactly -…807.5 ms: a tie before 1970 rounds up, to 05.193 (the sweep found it)
        ]
        for seconds in fixed {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(StorageDate.text(date) == Self.grdbText(date), "\(seconds)")
        }
        var random = SystemRandomNumberGenerator()
        // Through 2100, and across every year written by hand (the civil-date arithmetic's 400-year eras).
        for _ in 0..<2000 {
            let seconds = Double.random(in: -2_208_988_800...4_102_444_800, using: &random)
            let date = Date(timeIntervalSince1970: seconds)
            #expect(StorageDate.text(date) == Self.grdbText(date), "\(seconds)")
        }
        for _ in 0..<2000 {
            let seconds = Double.random(in: StorageDate.handWrittenSeconds, using: &random)
            let date = Date(timeIntervalSince1970: seconds)
            #expect(StorageDate.text(date) == Self.grdbText(date), "\(seconds)")
        }
    }

    // Found by scripts/fuzz store: a recording row whose date was far in the future trapped the conversion to
    // Int64 milliseconds when the row was written back (Fuzz/Corpus/store/regression-far-future-date).
    @Test("dates outside 1900–9999 (far future, before the Gregorian reform, infinite) are GRDB's text, never a trap")
    func outsideTheHandWrittenYears() throws {
        for seconds in [1e300, 253_402_300_800, -2_208_988_801, -14_000_000_000, -1e300, .infinity, -.infinity] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(StorageDate.text(date) == Self.grdbText(date), "\(seconds)")
        }
    }

    @Test("read back by GRDB as the same date, to the millisecond")
    func readsBack() throws {
        let date = Date(timeIntervalSince1970: 1_764_000_000.25)
        let decoded = try #require(Date.fromDatabaseValue(StorageDate.text(date).databaseValue))
        #expect(abs(decoded.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.001)
    }
}
