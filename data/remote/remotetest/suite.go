package remotetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loupeapp/loupe/data/guard"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
)

// Harness tells the suite how to reach one engine's copy of Chinook.
type Harness struct {
	// Profile and Password connect as the read-only role (or open the
	// SQLite file). The engine's package must be linked in (remote.Open).
	Profile  remote.Profile
	Password string
	// Ident maps a Chinook name in snake_case (invoice_line, unit_price)
	// to this edition's spelling.
	Ident func(name string) string
	// Comments is set when the test database has a comment on the track
	// table that starts "One row per song".
	Comments bool
	// TLS is set when the server offers TLS with a certificate this
	// machine does not trust (self-signed); unset when it offers none.
	TLS bool
	// Slow is a statement that runs for at least a minute and holds
	// marker in its text.
	Slow func(marker string) string
	// Running reports whether a statement holding marker is running on
	// the server, asked over an administrator's connection. Nil for
	// engines that run in-process (SQLite).
	Running func(ctx context.Context, marker string) (bool, error)
	// Unchecked runs text on s without Loupe's statement check, still in
	// its read-only transaction or read-only file.
	Unchecked func(ctx context.Context, s remote.Source, text string) error
	// RawWrite runs text as the read-only role on a plain connection,
	// without any of Loupe's layers. Nil where there is no role (SQLite).
	RawWrite func(ctx context.Context, text string) error
	// Restart restarts the server. Nil where there is no server.
	Restart func(t *testing.T)
	// Exclusive, if set, is called before the restart's slow query starts
	// and waits until no other test uses the server; the function it
	// returns ends that.
	Exclusive func(t *testing.T) (release func())
}

// Run is the contract every connector passes.
func Run(t *testing.T, h Harness) {
	ctx := context.Background()
	src, err := remote.Open(ctx, h.Profile, h.Password)
	if err != nil {
		t.Fatalf("open %s: %v", h.Profile.Target(), err)
	}
	t.Cleanup(func() { _ = src.Close() })
	s := &suite{h: h, src: src}
	t.Run("Dialect", s.dialect)
	t.Run("Discover", s.discover)
	t.Run("JoinQuery", s.join)
	t.Run("Caps", s.caps)
	t.Run("WritesRefusedByLoupe", s.refusedByLoupe)
	t.Run("WritesRefusedByServer", s.refusedByServer)
	t.Run("Timeout", s.timeout)
	t.Run("Cancel", s.cancel)
	t.Run("StopEarly", s.stopEarly)
	if h.Restart != nil {
		t.Run("ConnectionDropped", s.dropped)
	}
	t.Run("ConnectErrors", s.connectErrors)
}

type suite struct {
	h   Harness
	src remote.Source
}

func (s *suite) id(name string) string { return s.h.Ident(name) }

// sql writes a statement with {name} placeholders in this edition's names.
func (s *suite) sql(text string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(text, '{')
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := strings.IndexByte(text[i:], '}')
		b.WriteString(text[:i])
		b.WriteString(s.id(text[i+1 : i+j]))
		text = text[i+j+1:]
	}
}

func (s *suite) query(t *testing.T, text string, lim query.Limits) *query.Result {
	t.Helper()
	res, err := s.src.Query(context.Background(), s.sql(text), lim)
	if err != nil {
		t.Fatalf("query %s: %v", s.sql(text), err)
	}
	return res
}

// number reads a single numeric value.
func (s *suite) number(t *testing.T, text string) float64 {
	t.Helper()
	res := s.query(t, text, query.Limits{})
	if len(res.Rows) != 1 || len(res.Rows[0]) != 1 {
		t.Fatalf("%s: want one value, got %v", text, res.Rows)
	}
	return toFloat(t, res.Rows[0][0])
}

func toFloat(t *testing.T, v any) float64 {
	t.Helper()
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case string:
		var f float64
		if _, err := fmt.Sscan(x, &f); err == nil {
			return f
		}
	}
	t.Fatalf("not a number: %#v", v)
	return 0
}

func (s *suite) dialect(t *testing.T) {
	d := s.src.Dialect()
	if d.Kind != s.h.Profile.Kind || d.Name == "" || d.Version == "" || len(d.Tips) < 80 {
		t.Fatalf("dialect incomplete: %+v", d)
	}
}

var chinookTables = []string{"album", "artist", "customer", "employee", "genre", "invoice", "invoice_line", "media_type", "playlist", "playlist_track", "track"}

func (s *suite) discover(t *testing.T) {
	sc, err := s.src.Discover(context.Background())
	if err != nil {
		t.Fatalf("discover: %v", err)
	}
	var got, want []string
	for _, tb := range sc.Tables {
		got = append(got, tb.Name)
	}
	for _, n := range chinookTables {
		want = append(want, s.id(n))
	}
	sort.Strings(got)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tables:\n got %v\nwant %v", got, want)
	}
	track := sc.Table(s.id("track"))
	if track == nil || track.Kind != "table" {
		t.Fatalf("track: %+v", track)
	}
	cols := map[string]remote.Column{}
	for _, c := range track.Columns {
		cols[c.Name] = c
	}
	for _, n := range []string{"track_id", "name", "album_id", "media_type_id", "genre_id", "composer", "milliseconds", "bytes", "unit_price"} {
		if _, ok := cols[s.id(n)]; !ok {
			t.Errorf("track has no column %s: %+v", s.id(n), track.Columns)
		}
	}
	if c := cols[s.id("track_id")]; c.Nullable || !strings.Contains(strings.ToLower(c.Type), "int") {
		t.Errorf("track_id: %+v", c)
	}
	if c := cols[s.id("composer")]; !c.Nullable {
		t.Errorf("composer should be nullable: %+v", c)
	}
	if strings.Join(track.PrimaryKey, ",") != s.id("track_id") {
		t.Errorf("track primary key: %v", track.PrimaryKey)
	}
	if pt := sc.Table(s.id("playlist_track")); pt == nil || len(pt.PrimaryKey) != 2 {
		t.Errorf("playlist_track composite key: %+v", pt)
	}
	// Row estimates come from statistics: near the true count, not exact.
	n := s.number(t, "SELECT count(*) FROM {track}")
	if est := float64(track.Rows); est < n/2 || est > n*2 {
		t.Errorf("track row estimate %d, count %v", track.Rows, n)
	}
	if s.h.Comments && !strings.HasPrefix(track.Comment, "One row per song") {
		t.Errorf("track comment %q", track.Comment)
	}
	// Join paths: track → album, genre, media_type; invoice_line → track, invoice.
	paths := map[string]bool{}
	for _, p := range sc.JoinPaths() {
		paths[lastPart(p.From)+"->"+lastPart(p.To)] = true
	}
	for _, p := range [][2]string{{"track", "album"}, {"track", "genre"}, {"track", "media_type"}, {"invoice_line", "track"}, {"invoice_line", "invoice"}, {"album", "artist"}, {"invoice", "customer"}} {
		if !paths[s.id(p[0])+"->"+s.id(p[1])] {
			t.Errorf("no join path %s -> %s in %v", s.id(p[0]), s.id(p[1]), sc.JoinPaths())
		}
	}
	var fk *remote.ForeignKey
	for i := range track.ForeignKeys {
		if track.ForeignKeys[i].RefTable == s.id("album") {
			fk = &track.ForeignKeys[i]
		}
	}
	if fk == nil || strings.Join(fk.Columns, ",") != s.id("album_id") || strings.Join(fk.RefColumns, ",") != s.id("album_id") {
		t.Errorf("track → album key: %+v", fk)
	}
}

func lastPart(q string) string { return q[strings.LastIndexByte(q, '.')+1:] }

// join runs a four-table question and checks it against an invariant of
// the data: the sales per genre add up to the invoices' totals.
func (s *suite) join(t *testing.T) {
	res := s.query(t, `SELECT g.{name} AS genre, SUM(il.{unit_price} * il.{quantity}) AS sales, COUNT(DISTINCT i.{invoice_id}) AS invoices
FROM {invoice_line} il
JOIN {track} tr ON tr.{track_id} = il.{track_id}
JOIN {genre} g ON g.{genre_id} = tr.{genre_id}
JOIN {invoice} i ON i.{invoice_id} = il.{invoice_id}
GROUP BY g.{name}
ORDER BY sales DESC`, query.Limits{})
	if len(res.Columns) != 3 || res.Columns[0].Name != "genre" || res.Columns[1].Name != "sales" {
		t.Fatalf("columns: %+v", res.Columns)
	}
	total := 0.0
	prev := math.Inf(1)
	for _, r := range res.Rows {
		v := toFloat(t, r[1])
		if v > prev {
			t.Fatalf("not ordered by sales: %v", res.Rows)
		}
		prev = v
		total += v
	}
	want := s.number(t, "SELECT SUM({total}) FROM {invoice}")
	if math.Abs(total-want) > 0.01 || want == 0 {
		t.Fatalf("sales per genre add up to %.2f, invoices total %.2f", total, want)
	}
	genres := s.number(t, `SELECT COUNT(DISTINCT tr.{genre_id}) FROM {invoice_line} il JOIN {track} tr ON tr.{track_id} = il.{track_id}`)
	if float64(len(res.Rows)) != genres || res.RowCount != int64(genres) || res.Truncated {
		t.Fatalf("%d genre rows (row count %d), %v genres sold", len(res.Rows), res.RowCount, genres)
	}
}

func (s *suite) caps(t *testing.T) {
	n := s.number(t, "SELECT count(*) FROM {track}")
	res := s.query(t, "SELECT * FROM {track}", query.Limits{MaxRows: 10})
	if len(res.Rows) != 10 || !res.Truncated || float64(res.RowCount) != n {
		t.Fatalf("row cap: %d rows, truncated %v, row count %d of %v", len(res.Rows), res.Truncated, res.RowCount, n)
	}
	res = s.query(t, "SELECT * FROM {track}", query.Limits{MaxRows: 1000, MaxBytes: 2000})
	if len(res.Rows) == 0 || len(res.Rows) >= 100 || !res.Truncated || float64(res.RowCount) != n {
		t.Fatalf("byte cap: %d rows, truncated %v, row count %d", len(res.Rows), res.Truncated, res.RowCount)
	}
	size := 0
	for _, r := range res.Rows[:len(res.Rows)-1] {
		for _, v := range r {
			size += query.Size(v)
		}
	}
	if size >= 2000 {
		t.Fatalf("kept %d bytes before the last row, cap 2000", size)
	}
}

func (s *suite) refusedByLoupe(t *testing.T) {
	before := s.number(t, "SELECT count(*) FROM {track}")
	for _, text := range []string{
		"DELETE FROM {track}",
		"UPDATE {track} SET {name} = 'x'",
		"INSERT INTO {genre} ({genre_id}, {name}) VALUES (999, 'x')",
		"DROP TABLE {track}",
		"CREATE TABLE loupe_x (a INT)",
		"SELECT 1; DELETE FROM {track}",
		"SELECT * FROM {track} /* ; */ ; DELETE FROM {track}",
		"WITH d AS (DELETE FROM {track} RETURNING *) SELECT count(*) FROM d",
		"SELECT * INTO loupe_copy FROM {track}",
		"SELECT * FROM {track} FOR UPDATE",
		"TRUNCATE {track}",
		"BEGIN",
		"SET autocommit = 1",
	} {
		_, err := s.src.Query(context.Background(), s.sql(text), query.Limits{})
		if !errors.Is(err, guard.ErrRefused) {
			t.Errorf("%s: want a refusal, got %v", s.sql(text), err)
		}
	}
	if after := s.number(t, "SELECT count(*) FROM {track}"); after != before {
		t.Fatalf("track count changed from %v to %v", before, after)
	}
}

func (s *suite) refusedByServer(t *testing.T) {
	ctx := context.Background()
	del := s.sql("DELETE FROM {track} WHERE {track_id} = 1")
	if err := s.h.Unchecked(ctx, s.src, del); err == nil {
		t.Fatalf("%s ran in Loupe's read-only transaction", del)
	} else {
		t.Logf("read-only transaction: %v", err)
	}
	if s.h.RawWrite != nil {
		err := s.h.RawWrite(ctx, del)
		if err == nil {
			t.Fatalf("%s ran as the read-only role", del)
		}
		t.Logf("read-only role: %v", err)
	}
	if n := s.number(t, "SELECT count(*) FROM {track} WHERE {track_id} = 1"); n != 1 {
		t.Fatalf("track 1 is gone")
	}
}

// waitGone polls until no statement holding marker runs on the server.
func (s *suite) waitGone(t *testing.T, marker string, within time.Duration) {
	t.Helper()
	if s.h.Running == nil {
		return
	}
	deadline := time.Now().Add(within)
	for {
		on, err := s.h.Running(context.Background(), marker)
		if err != nil {
			t.Fatalf("ask the server what runs: %v", err)
		}
		if !on {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server still runs the statement marked %s %v later", marker, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *suite) waitRunning(t *testing.T, marker string) {
	t.Helper()
	if s.h.Running == nil {
		time.Sleep(300 * time.Millisecond)
		return
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if on, err := s.h.Running(context.Background(), marker); err == nil && on {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the statement marked %s never showed up on the server", marker)
}

func (s *suite) timeout(t *testing.T) {
	marker := fmt.Sprintf("loupe_timeout_%d", time.Now().UnixNano())
	start := time.Now()
	_, err := s.src.Query(context.Background(), s.h.Slow(marker), query.Limits{Timeout: time.Second})
	var te *query.TimeoutError
	if !errors.As(err, &te) || te.Limit != time.Second {
		t.Fatalf("want a timeout error, got %v", err)
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Fatalf("a 1 s limit took %v", el)
	}
	s.waitGone(t, marker, 2*time.Second)
	s.number(t, "SELECT count(*) FROM {genre}")
}

func (s *suite) cancel(t *testing.T) {
	marker := fmt.Sprintf("loupe_cancel_%d", time.Now().UnixNano())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.src.Query(ctx, s.h.Slow(marker), query.Limits{Timeout: time.Minute})
		done <- err
	}()
	s.waitRunning(t, marker)
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the query did not return within 5 s of the cancel")
	}
	t.Logf("returned %v after the cancel", time.Since(start))
	s.waitGone(t, marker, 2*time.Second)
	s.number(t, "SELECT count(*) FROM {genre}")
}

// stopEarly reads a few rows of a large result and stops: the statement
// must end on the server too.
func (s *suite) stopEarly(t *testing.T) {
	marker := fmt.Sprintf("loupe_stop_%d", time.Now().UnixNano())
	n := 0
	text := s.sql("SELECT a.{track_id}, b.{track_id} AS " + marker + " FROM {track} a CROSS JOIN {track} b")
	err := s.src.Stream(context.Background(), text, time.Minute, remote.Visitor{Row: func([]any) error {
		n++
		if n == 5 {
			return remote.ErrStop
		}
		return nil
	}})
	if err != nil || n != 5 {
		t.Fatalf("stop after 5 rows: %d rows, %v", n, err)
	}
	s.waitGone(t, marker, 3*time.Second)
	s.number(t, "SELECT count(*) FROM {genre}")
}

func (s *suite) dropped(t *testing.T) {
	if s.h.Exclusive != nil {
		defer s.h.Exclusive(t)()
	}
	marker := fmt.Sprintf("loupe_drop_%d", time.Now().UnixNano())
	done := make(chan error, 1)
	go func() {
		_, err := s.src.Query(context.Background(), s.h.Slow(marker), query.Limits{Timeout: time.Minute})
		done <- err
	}()
	s.waitRunning(t, marker)
	s.h.Restart(t)
	select {
	case err := <-done:
		if remote.ProblemOf(err) != remote.ConnectionLost {
			t.Fatalf("want a lost-connection error, got %v", err)
		}
		t.Logf("mid-query restart: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the query did not return within 20 s of the restart")
	}
	// The server is back: the next query works on a fresh connection.
	s.number(t, "SELECT count(*) FROM {genre}")
	if err := s.src.Ping(context.Background()); err != nil {
		t.Fatalf("ping after restart: %v", err)
	}
}

func (s *suite) connectErrors(t *testing.T) {
	ctx := context.Background()
	type tc struct {
		name string
		edit func(p *remote.Profile) string // returns the password to use
		want remote.Problem
	}
	var cases []tc
	if s.h.Profile.Kind == remote.SQLite {
		cases = []tc{
			{"missing file", func(p *remote.Profile) string { p.Path += ".missing"; return "" }, remote.NoFile},
		}
	} else {
		cases = []tc{
			{"wrong password", func(p *remote.Profile) string { return s.h.Password + "-wrong" }, remote.BadPassword},
			{"unknown user", func(p *remote.Profile) string { p.User = "loupe_nobody"; return "x" }, remote.BadPassword},
			{"unknown database", func(p *remote.Profile) string { p.Database = "loupe_no_such_db"; return s.h.Password }, remote.UnknownDatabase},
			{"nothing listens", func(p *remote.Profile) string { p.Port = freePort(t); return s.h.Password }, remote.Unreachable},
		}
		if s.h.TLS {
			cases = append(cases, tc{"TLS certificate not trusted", func(p *remote.Profile) string { p.TLS = remote.TLSVerifyFull; return s.h.Password }, remote.TLSProblem})
		} else {
			cases = append(cases, tc{"TLS required but unsupported", func(p *remote.Profile) string { p.TLS = remote.TLSRequire; return s.h.Password }, remote.TLSProblem})
		}
	}
	if s.h.TLS {
		t.Run("TLS required", func(t *testing.T) {
			p := s.h.Profile
			p.TLS = remote.TLSRequire
			src, err := remote.Open(ctx, p, s.h.Password)
			if err != nil {
				t.Fatalf("an encrypted connection without verification: %v", err)
			}
			defer src.Close()
			if _, err := src.Query(ctx, s.sql("SELECT count(*) FROM {genre}"), query.Limits{}); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := s.h.Profile
			pw := c.edit(&p)
			src, err := remote.Open(ctx, p, pw)
			if err == nil {
				src.Close()
				t.Fatalf("connected")
			}
			var ce *remote.ConnError
			if !errors.As(err, &ce) || ce.Problem != c.want || ce.Hint == "" {
				t.Fatalf("want %s with a hint, got %v", c.want, err)
			}
			if s.h.Password != "" && strings.Contains(err.Error(), s.h.Password) {
				t.Fatalf("the error shows the password: %v", err)
			}
			t.Logf("%v", err)
		})
	}
}
