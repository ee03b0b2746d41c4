-- A store written by schema version 1 (seed 004's shape: one JSON metadata
-- document per answer). Made with sqlite3 .dump of a file migrated to v1,
-- with rows as that version wrote them.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE conversations (
		id         TEXT PRIMARY KEY,
		name       TEXT NOT NULL,
		workspace  TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
CREATE INDEX conversations_by_updated ON conversations (updated_at DESC, id DESC);
CREATE TABLE messages (
		id              TEXT PRIMARY KEY,
		conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
		seq             INTEGER NOT NULL,
		role            TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
		content         TEXT NOT NULL DEFAULT '',
		status          TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('generating', 'complete', 'failed')),
		metadata        TEXT NOT NULL DEFAULT '{}',
		created_at      INTEGER NOT NULL,
		UNIQUE (conversation_id, seq)
	);
INSERT INTO conversations VALUES('chat_00000000000000a1','Revenue by region','/home/ana/loupe/workspace',1767225600000,1767226000000);
INSERT INTO conversations VALUES('chat_00000000000000b2','Orders last month','/home/ana/loupe/workspace',1767312000000,1767312100000);
INSERT INTO messages VALUES('msg_0000000000000a01','chat_00000000000000a1',1,'user','What is the revenue by region?','complete','{}',1767225600000);
INSERT INTO messages VALUES('msg_0000000000000a02','chat_00000000000000a1',2,'assistant','West leads with 40% of revenue.

Findings:
- West 40% [q1]','complete','{"claimed":true,"toolCalls":[{"name":"run_sql","args":{"sql":"SELECT region, sum(amount) AS revenue FROM orders GROUP BY region","purpose":"revenue by region"},"result":"4 rows: West 400, East 300, North 200, South 100"},{"name":"describe_table","args":{"table":"orders"},"result":"' || replace(hex(zeroblob(2500)), '00', 'x') || '"}],"tokensUsed":{"prompt":1500,"completion":120,"total":1620},"datasetsUsed":["orders"]}',1767225700000);
INSERT INTO messages VALUES('msg_0000000000000a03','chat_00000000000000a1',3,'user','same but for 2023','complete','{}',1767225800000);
INSERT INTO messages VALUES('msg_0000000000000a04','chat_00000000000000a1',4,'assistant','','failed','{"claimed":true,"error":{"message":"the model server did not answer","code":"unreachable","timestamp":"2026-01-01T00:05:00Z"}}',1767225900000);
INSERT INTO messages VALUES('msg_0000000000000b01','chat_00000000000000b2',1,'user','How many orders last month?','complete','{}',1767312000000);
INSERT INTO messages VALUES('msg_0000000000000b02','chat_00000000000000b2',2,'assistant','Counting the orders of','generating','{"claimed":true,"toolCalls":[{"name":"run_sql","args":{"sql":"SELECT count(*) FROM orders WHERE month = 12"},"result":"1 row: 1234"}]}',1767312100000);
COMMIT;
PRAGMA user_version=1;
