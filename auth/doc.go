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
//   - Tenants are records (Tenant): registered by the operator
//     (CreateTenant) or when a client or user is first given one, named by
//     its id then. A suspended tenant stays, with its records; Verify drops
//     it from a principal's services and names it in Principal.Suspended,
//     and refuses a principal left with none (tenant_suspended), so a
//     suspension holds from the caller's next request on every replica
//     (stores read it with the token, not from a snapshot).
//   - The operator's administration (admin.tenants, admin.clients) is
//     operator-wide: AdminPrivileges are never among TenantPrivileges, the
//     grants a tenant's client gets.
//   - A token is a snapshot of its subject's grants, so every change of a
//     client or user (UpdateClient, RotateClientSecret, UpdateUser) and its
//     removal delete its tokens in the same store call: a revoked client's
//     tokens stop at once, on every replica.
package auth
