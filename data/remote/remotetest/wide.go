package remotetest

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/loupeapp/loupe/data/remote"
)

// WideTarget is the one table of a WideDB whose name says nothing of what
// it holds: only its comments do ("Likelihood that each subscriber cancels
// next quarter"), so finding it for a question proves comments are
// searched.
const WideTarget = "sales.cx_attrition_scores"

// WideDB returns the read-only profile (and its password) of a PostgreSQL
// database with n generated warehouse tables, created on the test server
// the first time it is asked for (a DO block: tens of seconds for 5,000)
// and kept for later runs. Tables are spread over the schemas sales,
// finance and ops, named area_entity[_suffix] (fin_refund_daily,
// crm_customer_history…), each with a primary key, a declared foreign key
// to the previous entity of its area where there is one, three measures,
// three attributes, a timestamp and comments on the table and a measure;
// one view per hundred tables; plus WideTarget, with rows. Everything is
// analyzed, so the row estimates are the server's.
func WideDB(t testing.TB, n int) (remote.Profile, string) {
	t.Helper()
	env := Servers(t, "pg")
	ctx := context.Background()
	db := fmt.Sprintf("loupe_named_%d", n)
	admin, err := pgConnect(ctx, env, "ADMIN", "postgres")
	if err != nil {
		t.Fatalf("connect to the test server: %v", err)
	}
	defer admin.Close(ctx)
	// One builder at a time across test binaries and the bench script.
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(hashtext('loupe_named'))"); err != nil {
		t.Fatal(err)
	}
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", db).Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if !exists {
		start := time.Now()
		if err := buildWide(ctx, env, admin, db, n); err != nil {
			t.Fatalf("generate %s: %v", db, err)
		}
		t.Logf("generated %d tables in %s in %v", n, db, time.Since(start))
	}
	port, err := strconv.Atoi(env["LOUPE_PG_PORT"])
	if err != nil {
		t.Fatalf("port: %v", err)
	}
	return remote.Profile{Name: "wide", Kind: remote.Postgres, Host: env["LOUPE_PG_HOST"], Port: port,
		Database: db, User: env["LOUPE_PG_RO_USER"], TLS: remote.TLSDisable}, env["LOUPE_PG_RO_PASSWORD"]
}

// buildWide creates db under another name and renames it when it is
// whole, so an interrupted build is never taken for a finished one.
func buildWide(ctx context.Context, env map[string]string, admin *pgx.Conn, db string, n int) error {
	building := db + "_building"
	for _, q := range []string{"DROP DATABASE IF EXISTS " + building, "CREATE DATABASE " + building} {
		if _, err := admin.Exec(ctx, q); err != nil {
			return err
		}
	}
	b, err := pgConnect(ctx, env, "ADMIN", building)
	if err != nil {
		return err
	}
	_, err = b.Exec(ctx, fmt.Sprintf(wideSQL, n, env["LOUPE_PG_RO_USER"]))
	b.Close(ctx)
	if err != nil {
		return err
	}
	for _, q := range []string{"GRANT CONNECT ON DATABASE " + building + " TO " + env["LOUPE_PG_RO_USER"],
		"ALTER DATABASE " + building + " RENAME TO " + db} {
		if _, err := admin.Exec(ctx, q); err != nil {
			return err
		}
	}
	return nil
}

// wideSQL generates the tables; %d is their number. Table i has area
// i%20, entity (i/20)%60 and suffix (i/1200)%10, so names are unique up
// to 12,000 tables, and table i-20 is the previous entity of its area.
const wideSQL = `CREATE SCHEMA sales; CREATE SCHEMA finance; CREATE SCHEMA ops;
DO $$
DECLARE
  areas text[] := ARRAY['sales','hr','fin','crm','ops','mkt','inv','log','proc','mfg','svc','it','legal','risk','pay','edu','health','retail','web','ads'];
  area_names text[] := ARRAY['Sales','Human resources','Finance','Customer relations','Operations','Marketing','Inventory','Logistics','Procurement','Manufacturing','Service','IT','Legal','Risk','Payments','Education','Health','Retail','Web','Advertising'];
  ents text[] := ARRAY['customer','order','order_line','invoice','payment','product','supplier','employee','department','account',
    'ledger_entry','shipment','warehouse','campaign','lead','opportunity','contract','ticket','asset','vendor',
    'purchase_order','budget','forecast','store','region','territory','price_list','discount','promotion','return',
    'refund','subscription','plan','session','page_view','click','device','user','role','permission',
    'course','student','enrollment','patient','visit','claim','policy','premium','loan','transaction',
    'branch','atm','card','merchant','trip','driver','vehicle','route','stop','flight'];
  sufs text[] := ARRAY['','_history','_daily','_monthly','_stage','_archive','_detail','_summary','_audit','_snapshot'];
  suf_notes text[] := ARRAY['',', full history',', one row per day',', one row per month',', staging copy',', archived',', line-level detail',', summarized',', audit trail',', point-in-time snapshot'];
  measures text[] := ARRAY['amount','quantity','unit_price','total','discount_pct','tax_amount','balance','score','duration_min','weight_kg','cost','revenue','margin','item_count','rate'];
  attrs text[] := ARRAY['name','status','kind','category','code','description','email','phone','city','country','state','channel','currency','priority','origin','segment','tier'];
  schemas text[] := ARRAY['sales','finance','ops'];
  ne int := array_length(ents, 1);
  e text; tname text; qname text; prev text; refcol text;
BEGIN
  FOR i IN 0..%[1]d - 1 LOOP
    e := ents[1 + (i / 20) %% ne];
    tname := areas[1 + i %% 20] || '_' || e || sufs[1 + (i / 1200) %% 10] || CASE WHEN i >= 12000 THEN '_' || (i / 12000) ELSE '' END;
    qname := schemas[1 + i %% 3] || '.' || tname;
    refcol := '';
    IF (i / 20) %% ne > 0 THEN
      prev := schemas[1 + (i - 20) %% 3] || '.' || areas[1 + i %% 20] || '_' || ents[1 + ((i - 20) / 20) %% ne] || sufs[1 + ((i - 20) / 1200) %% 10]
        || CASE WHEN i - 20 >= 12000 THEN '_' || ((i - 20) / 12000) ELSE '' END;
      refcol := format(', %%I bigint REFERENCES %%s(id)', ents[1 + ((i - 20) / 20) %% ne] || '_id', prev);
    END IF;
    EXECUTE format('CREATE TABLE %%s (id bigint PRIMARY KEY%%s, %%I numeric(12,2), %%I numeric(12,2), %%I numeric(12,2), %%I text, %%I text, %%I text, created_at timestamptz)',
      qname, refcol, measures[1 + i %% 15], measures[1 + (i + 5) %% 15], measures[1 + (i + 10) %% 15],
      attrs[1 + i %% 17], attrs[1 + (i + 6) %% 17], attrs[1 + (i + 12) %% 17]);
    EXECUTE format('COMMENT ON TABLE %%s IS %%L', qname, area_names[1 + i %% 20] || ': ' || replace(e, '_', ' ') || ' records' || suf_notes[1 + (i / 1200) %% 10]);
    EXECUTE format('COMMENT ON COLUMN %%s.%%I IS %%L', qname, measures[1 + i %% 15], 'in EUR');
    IF i %% 100 = 99 THEN
      EXECUTE format('CREATE VIEW %%s_v AS SELECT id, %%I FROM %%s', qname, attrs[1 + i %% 17], qname);
    END IF;
  END LOOP;
END $$;
CREATE TABLE sales.cx_attrition_scores (customer_id bigint PRIMARY KEY, p_leave numeric(5,4), scored_on date, model_version text);
COMMENT ON TABLE sales.cx_attrition_scores IS 'Likelihood that each subscriber cancels next quarter, from the retention model';
COMMENT ON COLUMN sales.cx_attrition_scores.p_leave IS 'probability of cancellation';
INSERT INTO sales.cx_attrition_scores SELECT g, (g %% 1000) / 1000.0, DATE '2026-10-01', 'v3' FROM generate_series(1, 2000) g;
ANALYZE;
DO $$
DECLARE s text;
BEGIN
  FOREACH s IN ARRAY ARRAY['sales','finance','ops'] LOOP
    EXECUTE format('GRANT USAGE ON SCHEMA %%I TO %%I', s, '%[2]s');
    EXECUTE format('GRANT SELECT ON ALL TABLES IN SCHEMA %%I TO %%I', s, '%[2]s');
  END LOOP;
END $$;`

// pgConnect opens a plain pgx connection as role (ADMIN or RO) to db,
// bypassing Loupe.
func pgConnect(ctx context.Context, env map[string]string, role, db string) (*pgx.Conn, error) {
	u := &url.URL{Scheme: "postgres", User: url.UserPassword(env["LOUPE_PG_"+role+"_USER"], env["LOUPE_PG_"+role+"_PASSWORD"]),
		Host: env["LOUPE_PG_HOST"] + ":" + env["LOUPE_PG_PORT"], Path: "/" + db, RawQuery: "sslmode=disable"}
	return pgx.Connect(ctx, u.String())
}
