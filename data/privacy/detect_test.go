package privacy

import "testing"

func TestKindOfName(t *testing.T) {
	for _, tc := range []struct {
		col  string
		want Kind
	}{
		{"email", Email}, {"E_Mail", Email}, {"customer_email", Email}, {"email_address", Email},
		{"phone", Phone}, {"mobile", Phone}, {"tel", Phone}, {"billing_phone_number", Phone},
		{"ssn", SSN}, {"social_security_number", SSN}, {"national_id", NationID}, {"passport_no", Passport},
		{"iban", IBAN}, {"account_number", Account}, {"bank_account", Account}, {"credit_card", Card}, {"cc_number", Card}, {"card_number", Card},
		{"first_name", Name}, {"LastName", Name}, {"full_name", Name}, {"surname", Name}, {"CustomerFirstName", Name},
		{"address", Address}, {"street", Address}, {"ip_address", IP}, {"ip", IP},
		{"dob", Birth}, {"date_of_birth", Birth}, {"birthdate", Birth},
		// Not personal by name.
		{"name", ""}, {"product_name", ""}, {"amount", ""}, {"region", ""}, {"account_type", ""}, {"telemetry", ""},
		{"description", ""}, {"order_id", ""}, {"shipping", ""}, {"zip", ""},
	} {
		if got := KindOfName(tc.col); got != tc.want {
			t.Errorf("KindOfName(%q) = %q, want %q", tc.col, got, tc.want)
		}
	}
}

func TestKindOfValue(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want Kind
	}{
		{"ann.smith@example.org", Email},
		{"4111 1111 1111 1111", Card}, {"4111111111111111", Card}, {"4111111111111112", ""}, // Luhn fails
		{"DE89 3704 0044 0532 0130 00", IBAN}, {"GB82WEST12345698765432", IBAN}, {"GB82WEST12345698765433", ""}, // checksum fails
		{"123-45-6789", SSN}, {"000-12-3456", Phone}, {"666-12-3456", Phone}, // not an SSN; written like a phone number
		{"+44 20 7946 0958", Phone}, {"(555) 123-4567", Phone}, {"555-123-4567", Phone},
		{"2024-01-15", ""}, {"12345678", ""}, {"3.14159", ""}, {"hello", ""}, {"", ""},
		{"192.168.1.20", IP}, {"2001:db8::1", IP},
	} {
		if got := KindOfValue(tc.v); got != tc.want {
			t.Errorf("KindOfValue(%q) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestPropose(t *testing.T) {
	for _, tc := range []struct {
		name   string
		col    string
		sample []string
		want   Kind
		ok     bool
	}{
		{"by name", "email", nil, Email, true},
		{"by values", "contact", []string{"a@b.io", "c@d.io", "x@y.org", ""}, Email, true},
		{"cards by values", "c7", []string{"4111111111111111", "5500 0000 0000 0004", "340000000000009"}, Card, true},
		{"too few matches", "misc", []string{"a@b.io", "red", "green", "blue"}, "", false},
		{"nothing", "region", []string{"North", "South"}, "", false},
		{"empty sample", "x", []string{"", " "}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, ok := Propose(tc.col, tc.sample)
			if k != tc.want || ok != tc.ok {
				t.Errorf("Propose(%q) = %q, %v; want %q, %v", tc.col, k, ok, tc.want, tc.ok)
			}
		})
	}
}
