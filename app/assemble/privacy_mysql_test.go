package assemble_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loupeapp/loupe/app/assemble"
	"github.com/loupeapp/loupe/data/privacy"
	"github.com/loupeapp/loupe/data/query"
	"github.com/loupeapp/loupe/data/remote"
	_ "github.com/loupeapp/loupe/data/remote/mysql" // registers the MySQL connector
	"github.com/loupeapp/loupe/data/remote/remotetest"
)

// On a MariaDB connection at the masked level, the private values the
// gate puts back into the model's SQL are escaped as MySQL reads strings
// (a backslash escapes): a last name ending with a backslash cannot end
// its literal early and let the next value run as SQL. The table is in a
// database of its own on the test server.
func TestMaskedMySQLValuesStayInTheirLiterals(t *testing.T) {
	env := remotetest.Servers(t, "mysql")
	ctx := context.Background()
	admin, db := remotetest.MySQLScratch(t, env, "loupe_mask")
	for _, q := range []string{
		"CREATE TABLE " + db + ".customer (customer_id INT, last_name VARCHAR(40), email VARCHAR(40))",
		"INSERT INTO " + db + `.customer VALUES (1, 'Smith\\', 'ann@example.org'), (2, 'Jones', ' OR 1=1 -- '), (3, 'Brown', 'cy@example.org')`,
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	p, password := remotetest.MySQLProfile(t, env, "ADMIN", db)
	p.Name = "shop"
	store := remote.NewStore(filepath.Join(t.TempDir(), "connections.json"))
	if _, err := store.Put(p); err != nil {
		t.Fatal(err)
	}
	r, _ := openRemote(t, store, p.Name, password)
	defer r.Close()
	gate, err := assemble.NewGate(privacy.Masked, assemble.RemotePrivate{R: r, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The model sees the rows masked, and writes its filter with the
	// placeholders it saw.
	masked, err := gate.Send(ctx, "", "last names: Smith\\ and emails:  OR 1=1 -- ")
	if err != nil {
		t.Fatal(err)
	}
	last, mail := placeholderAfter(masked, "last names: "), placeholderAfter(masked, "emails: ")
	if !strings.HasPrefix(last, "<") || !strings.HasPrefix(mail, "<") {
		t.Fatalf("the values were not masked: %q", masked)
	}
	args, _ := json.Marshal(map[string]string{"sql": "SELECT count(*) FROM customer WHERE last_name = '" + last + "' AND email = '" + mail + "'"})
	back, err := gate.Receive(ctx, args)
	if err != nil {
		t.Fatal(err)
	}
	var call map[string]string
	if err := json.Unmarshal(back, &call); err != nil {
		t.Fatal(err)
	}
	res, err := r.Source.Query(ctx, call["sql"], remote.Defaults(query.Limits{}))
	if err != nil {
		t.Fatalf("run %s: %v", call["sql"], err)
	}
	if n, _ := res.Rows[0][0].(int64); n != 0 {
		t.Errorf("%s counted %d customers, want none (no customer has both values)", call["sql"], n)
	}
}

// placeholderAfter is the placeholder that follows prefix in s.
func placeholderAfter(s, prefix string) string {
	i := strings.Index(s, prefix)
	if i < 0 {
		return ""
	}
	rest := strings.TrimLeft(s[i+len(prefix):], " ")
	if j := strings.IndexByte(rest, '>'); j > 0 && rest[0] == '<' {
		return rest[:j+1]
	}
	return rest
}
