package mysql

import (
	"context"
	"fmt"
	"strings"

	"github.com/loupeapp/loupe/data/remote"
)

var _ remote.RoleAuditor = (*Source)(nil)

// readOnly are the privileges that only read.
var readOnly = map[string]bool{"USAGE": true, "SELECT": true, "SHOW VIEW": true, "SHOW DATABASES": true}

// RoleRisks implements remote.RoleAuditor from SHOW GRANTS.
func (s *Source) RoleRisks(ctx context.Context) (string, []string, error) {
	var user string
	if err := s.db.QueryRowContext(ctx, "SELECT CURRENT_USER()").Scan(&user); err != nil {
		return "", nil, fmt.Errorf("read the current user: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, "SHOW GRANTS")
	if err != nil {
		return "", nil, fmt.Errorf("read the grants of %s: %w", user, err)
	}
	defer rows.Close()
	var grants []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return "", nil, fmt.Errorf("read the grants of %s: %w", user, err)
		}
		grants = append(grants, g)
	}
	if err := rows.Err(); err != nil {
		return "", nil, fmt.Errorf("read the grants of %s: %w", user, err)
	}
	return user, grantRisks(grants), nil
}

// grantRisks turns SHOW GRANTS lines into one risk per line that grants
// more than reading, FILE and SUPER first.
func grantRisks(grants []string) []string {
	var special, other []string
	for _, g := range grants {
		privs, on, ok := parseGrant(g)
		if !ok {
			continue
		}
		var extra []string
		for _, p := range privs {
			switch {
			case readOnly[p]:
			case p == "FILE":
				special = append(special, "has FILE: reads and writes files on the server (LOAD_FILE, SELECT … INTO OUTFILE, LOAD DATA)")
			case p == "SUPER":
				special = append(special, "has SUPER: changes server settings and ends other sessions")
			case p == "ALL" || p == "ALL PRIVILEGES":
				if on == "*.*" {
					special = append(special, "has ALL PRIVILEGES on *.*, including FILE and SUPER: reads and writes files on the server")
				} else {
					extra = append(extra, "ALL PRIVILEGES")
				}
			default:
				extra = append(extra, p)
			}
		}
		if strings.Contains(strings.ToUpper(g), "WITH GRANT OPTION") {
			extra = append(extra, "GRANT OPTION")
		}
		if len(extra) > 0 {
			other = append(other, "may "+strings.Join(extra, ", ")+" on "+on)
		}
	}
	return append(special, other...)
}

// parseGrant reads "GRANT p1, p2 (col), … ON target TO …" into the
// privileges (column lists dropped) and the target; ok is false for role
// and proxy grants.
func parseGrant(g string) (privs []string, on string, ok bool) {
	up := strings.ToUpper(g)
	if !strings.HasPrefix(up, "GRANT ") {
		return nil, "", false
	}
	i := strings.Index(up, " ON ")
	if i < 0 || strings.HasPrefix(up, "GRANT PROXY ") {
		return nil, "", false
	}
	rest := g[i+len(" ON "):]
	if j := strings.Index(strings.ToUpper(rest), " TO "); j >= 0 {
		rest = rest[:j]
	}
	on = strings.TrimSpace(rest)
	depth, start := 0, len("GRANT ")
	list := up[:i]
	for k := start; k <= len(list); k++ {
		if k < len(list) && list[k] == '(' {
			depth++
		}
		if k < len(list) && list[k] == ')' {
			depth--
		}
		if k == len(list) || list[k] == ',' && depth == 0 {
			p := list[start:k]
			if c := strings.IndexByte(p, '('); c >= 0 {
				p = p[:c]
			}
			if p = strings.Join(strings.Fields(p), " "); p != "" {
				privs = append(privs, p)
			}
			start = k + 1
		}
	}
	return privs, on, true
}
