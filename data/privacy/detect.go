package privacy

import (
	"net"
	"regexp"
	"strings"
	"unicode"
)

// Kind is what sort of personal value a private column holds. It names
// the column's placeholders: a value of kind Email is sent as <email_3>.
type Kind string

// The kinds Loupe recognises. Private is for a column the user marked that
// matches no other kind.
const (
	Email    Kind = "email"
	Phone    Kind = "phone"
	Card     Kind = "card"
	IBAN     Kind = "iban"
	SSN      Kind = "ssn"
	NationID Kind = "national_id"
	Passport Kind = "passport"
	Account  Kind = "account"
	Name     Kind = "name"
	Address  Kind = "address"
	Birth    Kind = "birth"
	IP       Kind = "ip"
	Private  Kind = "private"
)

// words splits a column name into lower-case words: on anything not a
// letter or digit, and at lower→upper case changes (firstName).
func words(col string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(col)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && unicode.IsLower(rs[i-1]):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

// joinedNames are whole column names (words run together) and their kinds.
var joinedNames = map[string]Kind{
	"email": Email, "emailaddress": Email, "mail": Email,
	"phone": Phone, "phonenumber": Phone, "mobile": Phone, "tel": Phone, "telephone": Phone, "cellphone": Phone, "fax": Phone,
	"ssn": SSN, "socialsecuritynumber": SSN,
	"nationalid": NationID, "nationalidentifier": NationID, "nino": NationID, "taxid": NationID,
	"passport": Passport, "passportnumber": Passport, "passportno": Passport,
	"iban":       IBAN,
	"creditcard": Card, "creditcardnumber": Card, "cardnumber": Card, "ccnumber": Card, "ccnum": Card, "cardno": Card, "pan": Card,
	"account": Account, "accountnumber": Account, "accountno": Account, "acct": Account, "acctno": Account, "bankaccount": Account,
	"firstname": Name, "lastname": Name, "fullname": Name, "surname": Name, "forename": Name, "givenname": Name,
	"familyname": Name, "middlename": Name, "maidenname": Name,
	"address": Address, "streetaddress": Address, "street": Address, "homeaddress": Address, "addressline": Address,
	"dob": Birth, "birthdate": Birth, "dateofbirth": Birth, "birthday": Birth,
	"ip": IP, "ipaddress": IP, "ipv4": IP, "ipv6": IP,
}

// KindOfName returns the kind a column's name suggests, or "" when the name
// says nothing personal. It looks at the whole name and at its words
// (customer_email, billing_phone_number, CustomerFirstName).
func KindOfName(col string) Kind {
	ws := words(col)
	if len(ws) == 0 {
		return ""
	}
	if k, ok := joinedNames[strings.Join(ws, "")]; ok {
		return k
	}
	has := map[string]bool{}
	for _, w := range ws {
		has[w] = true
	}
	// Most specific first: an email_address is an email, not an address.
	switch {
	case has["email"] || has["mail"] && has["e"]:
		return Email
	case has["ip"] && (len(ws) <= 3):
		return IP
	case has["iban"]:
		return IBAN
	case has["ssn"], has["social"] && has["security"]:
		return SSN
	case has["passport"]:
		return Passport
	case has["national"] && (has["id"] || has["number"]):
		return NationID
	case has["card"] && (has["credit"] || has["debit"] || has["number"] || has["no"] || has["num"]), has["cc"] && (has["number"] || has["num"] || has["no"]):
		return Card
	case has["phone"] || has["mobile"] || has["telephone"] || has["tel"]:
		return Phone
	case has["dob"] || has["birth"] || has["birthday"] || has["birthdate"]:
		return Birth
	case has["surname"] || has["forename"] || has["firstname"] || has["lastname"] || has["fullname"]:
		return Name
	case has["name"] && (has["first"] || has["last"] || has["full"] || has["given"] || has["family"] || has["middle"] || has["maiden"]):
		return Name
	case has["address"] && !has["ip"] && !has["mac"] && !has["email"], has["street"]:
		return Address
	case (has["account"] || has["acct"]) && (has["number"] || has["no"] || has["num"] || has["iban"] || has["bank"]):
		return Account
	}
	return ""
}

var (
	emailRe = regexp.MustCompile(`^[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}$`)
	ssnRe   = regexp.MustCompile(`^(\d{3})-(\d{2})-(\d{4})$`)
	ibanRe  = regexp.MustCompile(`^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$`)
	phoneRe = regexp.MustCompile(`^\+?[\d\s().\-]{7,22}$`)
)

// KindOfValue returns the kind a single value has by its shape, or "":
// an email address, a card number passing the Luhn check, an IBAN whose
// checksum holds, a US SSN (AAA-GG-SSSS, no 000/666/9xx area), a phone
// number (7–15 digits with a leading + or separators), an IP address.
func KindOfValue(v string) Kind {
	v = strings.TrimSpace(v)
	switch {
	case v == "":
		return ""
	case emailRe.MatchString(v):
		return Email
	case isSSN(v):
		return SSN
	case isIBAN(v):
		return IBAN
	case isCard(v):
		return Card
	case isIP(v):
		return IP
	case isPhone(v):
		return Phone
	}
	return ""
}

func isSSN(v string) bool {
	m := ssnRe.FindStringSubmatch(v)
	if m == nil {
		return false
	}
	return m[1] != "000" && m[1] != "666" && m[1][0] != '9' && m[2] != "00" && m[3] != "0000"
}

// isIBAN checks the shape and the ISO 7064 mod-97 checksum; spaces are
// allowed between groups.
func isIBAN(v string) bool {
	s := strings.ToUpper(strings.ReplaceAll(v, " ", ""))
	if !ibanRe.MatchString(s) {
		return false
	}
	r := s[4:] + s[:4]
	mod := 0
	for _, c := range r {
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
			mod = (mod*10 + d) % 97
		default:
			d = int(c-'A') + 10
			mod = (mod*100 + d) % 97
		}
	}
	return mod == 1
}

// digitsOf returns v's digits when v is only digits, spaces and dashes.
func digitsOf(v string) (string, bool) {
	var b strings.Builder
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-':
		default:
			return "", false
		}
	}
	return b.String(), true
}

// isCard is 13–19 digits (spaces or dashes between) passing Luhn.
func isCard(v string) bool {
	d, ok := digitsOf(v)
	if !ok || len(d) < 13 || len(d) > 19 {
		return false
	}
	return luhn(d)
}

func luhn(d string) bool {
	sum, double := 0, false
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if double {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
		double = !double
	}
	return sum%10 == 0
}

// isPhone is 7–15 digits written as a phone number: a leading +, or at
// least two separators (so that a plain integer or a date is not one).
func isPhone(v string) bool {
	if !phoneRe.MatchString(v) {
		return false
	}
	digits, seps := 0, 0
	for _, r := range v {
		switch {
		case r >= '0' && r <= '9':
			digits++
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')':
			seps++
		}
	}
	if digits < 7 || digits > 15 {
		return false
	}
	if looksLikeDate(v) {
		return false
	}
	return strings.HasPrefix(v, "+") || seps >= 2
}

var dateRe = regexp.MustCompile(`^\d{4}[-./]\d{1,2}[-./]\d{1,2}|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$`)

func looksLikeDate(v string) bool { return dateRe.MatchString(v) }

func isIP(v string) bool {
	ip := net.ParseIP(v)
	if ip == nil {
		return false
	}
	return strings.Count(v, ".") == 3 || strings.Contains(v, ":")
}

// SampleShare is the share of a column's non-empty sample values that must
// have one kind for Propose to propose it by values.
const SampleShare = 0.6

// Propose returns the kind a column should be private as, judged by its
// name and then by a sample of its values (bounded by the caller), and
// whether it should be proposed at all.
func Propose(col string, sample []string) (Kind, bool) {
	if k := KindOfName(col); k != "" {
		return k, true
	}
	counts := map[Kind]int{}
	n := 0
	for _, v := range sample {
		if strings.TrimSpace(v) == "" {
			continue
		}
		n++
		if k := KindOfValue(v); k != "" {
			counts[k]++
		}
	}
	if n == 0 {
		return "", false
	}
	best, most := Kind(""), 0
	for _, k := range []Kind{Email, SSN, IBAN, Card, Phone, IP} {
		if counts[k] > most {
			best, most = k, counts[k]
		}
	}
	if best != "" && float64(most) >= SampleShare*float64(n) {
		return best, true
	}
	return "", false
}
