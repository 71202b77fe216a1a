import GRDB

/// The schema of the griptrack database, as named, append-only migrations.
///
/// - Important: A migration that has shipped is never edited, renamed or removed. A schema change is a new
///   migration appended at the end. Migrations use literal table and column names, never app types, so that they
///   keep meaning the same thing when the records change.
enum Migrations {
    /// The migrator that brings any griptrack database up to the current schema.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        // Recordings (grip sessions), their efforts (reps) and their samples, stored as lossless chunks.
        migrator.registerMigration("v1 recordings, efforts, sample chunks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE recording (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        uuid TEXT NOT NULL UNIQUE,
                        startedAt DATETIME NOT NULL,
                        endedAt DATETIME,
                        device TEXT NOT NULL,
                        profile TEXT NOT NULL,
                        hand TEXT CHECK (hand IN ('left', 'right')),
                        label TEXT,
                        state TEXT NOT NULL CHECK (state IN ('recording', 'complete', 'recovered')),
                        owner TEXT,
                        lastCommitAt DATETIME,
                        sampleCount INTEGER NOT NULL DEFAULT 0 CHECK (sampleCount >= 0),
                        maxKilograms REAL,
                        averageKilograms REAL
                    );
                    CREATE INDEX recording_on_startedAt ON recording(startedAt);
                    CREATE INDEX recording_on_state ON recording(state);

                    CREATE TABLE effort (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        recordingId INTEGER NOT NULL REFERENCES recording(id) ON DELETE CASCADE,
                        effortIndex INTEGER NOT NULL CHECK (effortIndex >= 0),
                        startMicros INTEGER NOT NULL,
                        endMicros INTEGER NOT NULL,
                        peakKilograms REAL NOT NULL,
                        meanKilograms REAL NOT NULL,
                        durationMicros INTEGER NOT NULL,
                        timeToPeakMicros INTEGER NOT NULL,
                        rfdKilogramsPerSecond REAL,
                        impulseKilogramSeconds REAL NOT NULL,
                        baselineKilograms REAL NOT NULL,
                        isOpen BOOLEAN NOT NULL,
                        UNIQUE (recordingId, effortIndex)
                    );

                    CREATE TABLE sampleChunk (
                        recordingId INTEGER NOT NULL REFERENCES recording(id) ON DELETE CASCADE,
                        sequence INTEGER NOT NULL CHECK (sequence >= 0),
                        encoding INTEGER NOT NULL,
                        firstMicros INTEGER NOT NULL,
                        sampleCount INTEGER NOT NULL CHECK (sampleCount > 0),
                        samples BLOB NOT NULL,
                        PRIMARY KEY (recordingId, sequence)
                    ) WITHOUT ROWID;
                    """
            )
        }

        // What the entitlement resolver reads: the manual override, verified App Store data with its replay
        // high-water marks, processed notifications, and the audit log of Pro grants and revokes.
        migrator.registerMigration("v1 entitlement state and Pro audit log") { db in
            try db.execute(
                sql: """
                    CREATE TABLE manualOverride (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        note TEXT NOT NULL,
                        expiresAt DATETIME,
                        grantedAt DATETIME NOT NULL,
                        grantedBy TEXT NOT NULL
                    );

                    CREATE TABLE proAudit (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        at DATETIME NOT NULL,
                        action TEXT NOT NULL CHECK (action IN ('grant', 'revoke')),
                        source TEXT NOT NULL,
                        actor TEXT NOT NULL,
                        note TEXT,
                        expiresAt DATETIME
                    );

                    CREATE TABLE appStoreTransaction (
                        transactionId TEXT NOT NULL PRIMARY KEY,
                        originalTransactionId TEXT NOT NULL,
                        productId TEXT,
                        environment TEXT,
                        signedDateMillis REAL NOT NULL,
                        purchaseDateMillis REAL,
                        expiresDateMillis REAL,
                        revocationDateMillis REAL,
                        payloadJSON TEXT NOT NULL,
                        jws TEXT NOT NULL,
                        verifiedAt DATETIME NOT NULL
                    );
                    CREATE INDEX appStoreTransaction_on_originalTransactionId
                        ON appStoreTransaction(originalTransactionId);

                    CREATE TABLE appStoreRenewalInfo (
                        originalTransactionId TEXT NOT NULL PRIMARY KEY,
                        environment TEXT,
                        signedDateMillis REAL NOT NULL,
                        renewalDateMillis REAL,
                        gracePeriodExpiresDateMillis REAL,
                        payloadJSON TEXT NOT NULL,
                        jws TEXT NOT NULL,
                        verifiedAt DATETIME NOT NULL
                    );

                    CREATE TABLE signedDateHighWater (
                        kind TEXT NOT NULL CHECK (kind IN ('transaction', 'renewalInfo')),
                        originalTransactionId TEXT NOT NULL,
                        newestSignedDateMillis REAL NOT NULL,
                        PRIMARY KEY (kind, originalTransactionId)
                    ) WITHOUT ROWID;

                    CREATE TABLE processedNotification (
                        notificationUUID TEXT NOT NULL PRIMARY KEY,
                        notificationType TEXT NOT NULL,
                        subtype TEXT,
                        signedDateMillis REAL,
                        processedAt DATETIME NOT NULL
                    );
                    """
            )
        }

        // What the Tindeq app computed for an imported test (`griptrack import`), kept beside griptrack's own
        // analysis of the same samples: the headline figures, every header field as written, per-set and per-rep
        // figures (repeaters' Avg/Peak rows, critical force's medians) and critical force's threshold crossings.
        migrator.registerMigration("v2 imported app figures") { db in
            try db.execute(
                sql: """
                    CREATE TABLE importedFigures (
                        recordingId INTEGER PRIMARY KEY REFERENCES recording(id) ON DELETE CASCADE,
                        source TEXT NOT NULL CHECK (source IN ('tindeq-app', 'griptrack')),
                        fileName TEXT NOT NULL,
                        testType TEXT NOT NULL,
                        testedAt TEXT NOT NULL,
                        tag TEXT,
                        comment TEXT,
                        maxKilograms REAL,
                        averageKilograms REAL,
                        durationSeconds REAL,
                        mvcKilograms REAL,
                        bodyWeightKilograms REAL,
                        rfd2080KilogramsPerSecond REAL,
                        rfdIntervalKilogramsPerSecond REAL,
                        intervalTimeMillis REAL,
                        intervalThresholdKilograms REAL,
                        criticalForceKilograms REAL,
                        fieldsJSON TEXT NOT NULL,
                        thresholdCrossingsJSON TEXT NOT NULL,
                        importedAt DATETIME NOT NULL
                    );

                    CREATE TABLE importedRep (
                        recordingId INTEGER NOT NULL REFERENCES importedFigures(recordingId) ON DELETE CASCADE,
                        setNumber INTEGER NOT NULL CHECK (setNumber >= 1),
                        repNumber INTEGER NOT NULL CHECK (repNumber >= 0),
                        averageKilograms REAL,
                        peakKilograms REAL,
                        medianKilograms REAL,
                        PRIMARY KEY (recordingId, setNumber, repNumber)
                    ) WITHOUT ROWID;
                    """
            )
        }

        // An effort may be open at its start (the stream began mid-pull) as well as at its end.
        migrator.registerMigration("v3 efforts open at their start") { db in
            try db.execute(sql: "ALTER TABLE effort ADD COLUMN isOpenStart BOOLEAN NOT NULL DEFAULT 0")
        }

        // Cross-device sync (docs/sync.md): every store change appends a row here in its own transaction; the sync
        // client ships rows in id order and deletes them once PostgreSQL has committed them. Rows name what changed
        // (a recording by UUID, a range of its chunks, a tombstone, an entitlement change); the data is read from
        // the store when the row is shipped, so a re-sent row carries the current state. `syncStatus` keeps the
        // last success and failure for `griptrack sync status`.
        migrator.registerMigration("v4 sync outbox") { db in
            try db.execute(
                sql: """
                    CREATE TABLE syncOutbox (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL CHECK (kind IN ('recording', 'chunks', 'deleted', 'entitlement')),
                        recordingUUID TEXT,
                        firstSequence INTEGER,
                        lastSequence INTEGER,
                        payload TEXT,
                        at DATETIME NOT NULL
                    );

                    CREATE TABLE syncStatus (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        lastSuccessAt DATETIME,
                        lastErrorAt DATETIME,
                        lastError TEXT,
                        rowsSent INTEGER NOT NULL DEFAULT 0
                    );

                    -- What was stored before sync existed goes out on the first sync too: each recording's summary
                    -- and all of its chunks.
                    INSERT INTO syncOutbox (kind, recordingUUID, firstSequence, lastSequence, at)
                        SELECT CASE WHEN COUNT(sampleChunk.sequence) = 0 THEN 'recording' ELSE 'chunks' END,
                               recording.uuid, MIN(sampleChunk.sequence), MAX(sampleChunk.sequence),
                               recording.startedAt
                        FROM recording LEFT JOIN sampleChunk ON sampleChunk.recordingId = recording.id
                        GROUP BY recording.id ORDER BY recording.id;
                    """
            )
        }

        // Sample chunks move from a WITHOUT ROWID table into an ordinary one, same columns and key. In a WITHOUT
        // ROWID table a row is an index entry, which keeps at most 231 bytes on a 1 KiB page: a live 0.5 s chunk
        // (≈ 270 bytes at 80 Hz) spilled the rest onto an overflow page of its own, so every live commit wrote one
        // more page and every chunk took more than a page of file. A table row keeps up to 989 bytes on the page
        // (docs/storage.md, "Bytes written").
        migrator.registerMigration("v5 sample chunks in a rowid table") { db in
            try db.execute(
                sql: """
                    CREATE TABLE sampleChunkWithRowid (
                        recordingId INTEGER NOT NULL REFERENCES recording(id) ON DELETE CASCADE,
                        sequence INTEGER NOT NULL CHECK (sequence >= 0),
                        encoding INTEGER NOT NULL,
                        firstMicros INTEGER NOT NULL,
                        sampleCount INTEGER NOT NULL CHECK (sampleCount > 0),
                        samples BLOB NOT NULL,
                        PRIMARY KEY (recordingId, sequence)
                    );
                    INSERT INTO sampleChunkWithRowid
                        (recordingId, sequence, encoding, firstMicros, sampleCount, samples)
                        SELECT recordingId, sequence, encoding, firstMicros, sampleCount, samples
                        FROM sampleChunk ORDER BY recordingId, sequence;
                    DROP TABLE sampleChunk;
                    ALTER TABLE sampleChunkWithRowid RENAME TO sampleChunk;
                    """
            )
        }

        // The web app's credentials (docs/web.md): paired browsers' sessions and scripts' bearer tokens, stored as
        // the SHA-256 of the secret only. A name is unique among credentials that are not revoked, so a revoked name
        // can be given again while the audit trail keeps the old row.
        migrator.registerMigration("v6 web credentials") { db in
            try db.execute(
                sql: """
                    CREATE TABLE webCredential (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
                        role TEXT NOT NULL CHECK (role IN ('watch', 'record', 'admin')),
                        kind TEXT NOT NULL CHECK (kind IN ('session', 'token')),
                        secretHash TEXT NOT NULL UNIQUE,
                        createdAt DATETIME NOT NULL,
                        revokedAt DATETIME
                    );
                    CREATE UNIQUE INDEX webCredential_activeName ON webCredential(name) WHERE revokedAt IS NULL;
                    """
            )
        }

        // The digest of what was imported, so importing the same export again is recognised (issue: a re-import
        // silently made a duplicate). Indexed: every import looks it up.
        migrator.registerMigration("v7 imported content digest") { db in
            try db.execute(
                sql: """
                    ALTER TABLE importedFigures ADD COLUMN contentDigest TEXT;
                    CREATE INDEX importedFiguresByDigest ON importedFigures(contentDigest) WHERE contentDigest IS NOT NULL;
                    """
            )
        }

        // Who pulled and how (issue 30): the athlete (several people share one station), the grip, the edge depth
        // and the body weight, and the hand may now be both. v1's CHECK on `hand` allows only left and right, and
        // SQLite cannot alter a CHECK, so the table is rebuilt as GRDB's migration guide does it: new table, copy,
        // drop, rename, indexes again. The migrator runs this with foreign keys off (deferred checks), so dropping
        // the old table does not cascade to efforts, chunks or imported figures; it checks them all afterwards.
        // The AUTOINCREMENT high-water mark is carried over, so ids of deleted recordings are never reused.
        migrator.registerMigration("v8 athlete, grip, edge and body weight on recordings") { db in
            let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'recording'")
            try db.execute(
                sql: """
                    CREATE TABLE recordingV8 (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        uuid TEXT NOT NULL UNIQUE,
                        startedAt DATETIME NOT NULL,
                        endedAt DATETIME,
                        device TEXT NOT NULL,
                        profile TEXT NOT NULL,
                        hand TEXT CHECK (hand IN ('left', 'right', 'both')),
                        label TEXT,
                        state TEXT NOT NULL CHECK (state IN ('recording', 'complete', 'recovered')),
                        owner TEXT,
                        lastCommitAt DATETIME,
                        sampleCount INTEGER NOT NULL DEFAULT 0 CHECK (sampleCount >= 0),
                        maxKilograms REAL,
                        averageKilograms REAL,
                        athlete TEXT,
                        grip TEXT,
                        edgeMillimetres REAL CHECK (edgeMillimetres > 0),
                        bodyWeightKilograms REAL CHECK (bodyWeightKilograms > 0)
                    );
                    INSERT INTO recordingV8
                        (id, uuid, startedAt, endedAt, device, profile, hand, label, state, owner, lastCommitAt,
                         sampleCount, maxKilograms, averageKilograms)
                        SELECT id, uuid, startedAt, endedAt, device, profile, hand, label, state, owner, lastCommitAt,
                               sampleCount, maxKilograms, averageKilograms
                        FROM recording ORDER BY id;
                    DROP TABLE recording;
                    ALTER TABLE recordingV8 RENAME TO recording;
                    CREATE INDEX recording_on_startedAt ON recording(startedAt);
                    CREATE INDEX recording_on_state ON recording(state);
                    CREATE INDEX recording_on_athlete ON recording(athlete, hand, grip);
                    """
            )
            if let sequence {
                try db.execute(
                    sql: "UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = 'recording'", arguments: [sequence])
            }
            // `griptrack doctor --repair` copies damaged rows as they are; a copy table made before v8 takes v8's
            // columns too, so later copies still fit.
            if try db.tableExists("quarantinedRecording") {
                try db.execute(
                    sql: """
                        ALTER TABLE quarantinedRecording ADD COLUMN athlete TEXT;
                        ALTER TABLE quarantinedRecording ADD COLUMN grip TEXT;
                        ALTER TABLE quarantinedRecording ADD COLUMN edgeMillimetres REAL;
                        ALTER TABLE quarantinedRecording ADD COLUMN bodyWeightKilograms REAL;
                        """)
            }
        }

        migrator.registerMigration("v9 protocol on recordings") { db in
            // Added columns, not a rebuild as v8 was: a CHECK on a new column is one SQLite can add, and every stored
            // row keeps NULL (no protocol) until `record --protocol` or `label --protocol` says which one ran.
            try db.execute(
                sql: """
                    ALTER TABLE recording ADD COLUMN protocolNotation TEXT;
                    ALTER TABLE recording ADD COLUMN protocolMaxKilograms REAL CHECK (protocolMaxKilograms > 0);
                    """)
            // As in v8: a quarantine copy made before v9 takes v9's columns, so later copies still fit.
            if try db.tableExists("quarantinedRecording") {
                try db.execute(
                    sql: """
                        ALTER TABLE quarantinedRecording ADD COLUMN protocolNotation TEXT;
                        ALTER TABLE quarantinedRecording ADD COLUMN protocolMaxKilograms REAL;
                        """)
            }
        }

        migrator.registerMigration("v10 a sensor's correction on recordings") { db in
            // The correction (`[device] scale`, `offset_kg`) the samples were corrected with, so the raw readings stay
            // known (docs/calibration.md); NULL = none. Added columns, as v9.
            try db.execute(
                sql: """
                    ALTER TABLE recording ADD COLUMN correctionScale REAL CHECK (correctionScale > 0);
                    ALTER TABLE recording ADD COLUMN correctionOffsetKilograms REAL
                        CHECK ((correctionScale IS NULL) = (correctionOffsetKilograms IS NULL));
                    """)
            if try db.tableExists("quarantinedRecording") {
                try db.execute(
                    sql: """
                        ALTER TABLE quarantinedRecording ADD COLUMN correctionScale REAL;
                        ALTER TABLE quarantinedRecording ADD COLUMN correctionOffsetKilograms REAL;
                        """)
            }
        }

        return migrator
    }
}
