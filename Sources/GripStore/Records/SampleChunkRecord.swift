import Foundation
import GRDB

/// A row of the `sampleChunk` table: consecutive samples of one recording, encoded by ``SampleChunkCodec``.
struct SampleChunkRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "sampleChunk"

    var recordingId: Int64
    /// Position of the chunk in its recording, from 0, without gaps.
    var sequence: Int
    /// ``SampleChunkCodec/encoding`` the blob was written with.
    var encoding: Int
    /// Device time of the chunk's first sample, in microseconds.
    var firstMicros: Int64
    var sampleCount: Int
    var samples: Data
}
