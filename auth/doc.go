// Package auth decides who may call msgkit's APIs and for which tenants.
//
// It issues OAuth 2.0 access tokens with the client credentials grant
// (the CDS interface's security: clients registered by the operator,
// refused from addresses outside their networks) and with the password grant of the test
// system (the test system's security: tokens live 3600 seconds), verifies
// bearer tokens and X-API-Key keys (routing provisioning), and tells which
// tenants (service UUIDs) and privileges a caller has.
//
// Secrets are never stored: client secrets and passwords as bcrypt hashes,
// tokens and API keys (256 random bits, so a fast hash is enough) as their
// SHA-256. Secret checks are constant-time, and an unknown client or user
// costs the same bcrypt comparison as a known one, so timing tells nothing.
//
// Choices where the documents are silent:
//   - A token carries a snapshot of its client's tenants and privileges;
//     it stays valid until it expires. Expired tokens are refused and
//     deleted when presented, and PurgeExpired removes the rest.
//   - The password grant needs no client credentials (a public client);
//     credentials the client does send are verified with
//     AuthenticateClient before the user's (RFC 6749 4.3.2), so a wrong
//     client secret is invalid_client, never ignored.
//   - Wrong or unknown client credentials are invalid_client; a right
//     secret from a foreign address is unauthorized_client, which only the
//     secret's holder can learn.
//   - Client-credentials tokens live one hour by default (Options.TokenTTL).
package auth
