//! Listening, connection limits, authentication and SSL (`Connections and Authentication`).
//!
//! sluice has no SSL: `ssl = on` is refused rather than ignored.

use super::enums::{PASSWORD_ENCRYPTION, SSL_MIN_PROTOCOL_VERSIONS, SSL_PROTOCOL_VERSIONS};
use super::flags::{LIST_INPUT, LIST_QUOTE, NOT_IN_SAMPLE, NO_SHOW_ALL, SUPERUSER_ONLY};
use super::Category::{ConnAuthAuth, ConnAuthSettings, ConnAuthSsl};
use super::Context::{Postmaster, Sighup, User};
use super::{boolean, enumerated, int, string, Setting};
use crate::hooks;
use crate::units::Unit::{Kb, Ms, S};

/// The settings of this group, by name.
pub(super) static SETTINGS: &[Setting] = &[
    int("authentication_timeout", Sighup, ConnAuthAuth, 60, 1, 600)
        .unit(S)
        .describe("Sets the maximum allowed time to complete client authentication."),
    boolean("bonjour", Postmaster, ConnAuthSettings, false)
        .check(hooks::bonjour)
        .describe("Enables advertising the server via Bonjour."),
    string("bonjour_name", Postmaster, ConnAuthSettings, Some(""))
        .describe("Sets the Bonjour service name."),
    int("client_connection_check_interval", User, ConnAuthSettings, 0, 0, i32::MAX)
        .unit(Ms)
        .describe("Sets the time interval between checks for disconnection while running queries."),
    boolean("db_user_namespace", Sighup, ConnAuthAuth, false)
        .describe("Enables per-database user names."),
    boolean("krb_caseins_users", Sighup, ConnAuthAuth, false)
        .describe("Sets whether Kerberos and GSSAPI user names should be treated as case-insensitive."),
    string("krb_server_keyfile", Sighup, ConnAuthAuth, Some("FILE:/etc/postgresql-common/krb5.keytab"))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the location of the Kerberos server key file."),
    string("listen_addresses", Postmaster, ConnAuthSettings, Some("localhost"))
        .flags(LIST_INPUT)
        .describe("Sets the host name or IP address(es) to listen to."),
    int("max_connections", Postmaster, ConnAuthSettings, 100, 1, 262143)
        .describe("Sets the maximum number of concurrent connections."),
    enumerated("password_encryption", User, ConnAuthAuth, "scram-sha-256", PASSWORD_ENCRYPTION)
        .describe("Chooses the algorithm for encrypting passwords."),
    int("port", Postmaster, ConnAuthSettings, 5432, 1, 65535)
        .describe("Sets the TCP port the server listens on."),
    boolean("ssl", Sighup, ConnAuthSsl, false)
        .check(hooks::ssl)
        .describe("Enables SSL connections."),
    string("ssl_ca_file", Sighup, ConnAuthSsl, Some(""))
        .describe("Location of the SSL certificate authority file."),
    string("ssl_cert_file", Sighup, ConnAuthSsl, Some("server.crt"))
        .describe("Location of the SSL server certificate file."),
    string("ssl_ciphers", Sighup, ConnAuthSsl, Some("HIGH:MEDIUM:+3DES:!aNULL"))
        .describe("Sets the list of allowed SSL ciphers."),
    string("ssl_crl_dir", Sighup, ConnAuthSsl, Some(""))
        .describe("Location of the SSL certificate revocation list directory."),
    string("ssl_crl_file", Sighup, ConnAuthSsl, Some(""))
        .describe("Location of the SSL certificate revocation list file."),
    string("ssl_dh_params_file", Sighup, ConnAuthSsl, Some(""))
        .describe("Location of the SSL DH parameters file."),
    string("ssl_ecdh_curve", Sighup, ConnAuthSsl, Some("prime256v1"))
        .describe("Sets the curve to use for ECDH."),
    string("ssl_key_file", Sighup, ConnAuthSsl, Some("server.key"))
        .describe("Location of the SSL server private key file."),
    enumerated("ssl_max_protocol_version", Sighup, ConnAuthSsl, "", SSL_PROTOCOL_VERSIONS)
        .describe("Sets the maximum SSL/TLS protocol version to use."),
    enumerated("ssl_min_protocol_version", Sighup, ConnAuthSsl, "TLSv1.2", SSL_MIN_PROTOCOL_VERSIONS)
        .describe("Sets the minimum SSL/TLS protocol version to use."),
    string("ssl_passphrase_command", Sighup, ConnAuthSsl, Some(""))
        .flags(SUPERUSER_ONLY)
        .describe("Command to obtain passphrases for SSL."),
    boolean("ssl_passphrase_command_supports_reload", Sighup, ConnAuthSsl, false)
        .describe("Controls whether ssl_passphrase_command is called during server reload."),
    boolean("ssl_prefer_server_ciphers", Sighup, ConnAuthSsl, true)
        .describe("Give priority to server ciphersuite order."),
    int("ssl_renegotiation_limit", User, ConnAuthSsl, 0, 0, 0)
        .unit(Kb)
        .flags(NO_SHOW_ALL | NOT_IN_SAMPLE)
        .describe("SSL renegotiation is no longer supported; this can only be 0."),
    int("superuser_reserved_connections", Postmaster, ConnAuthSettings, 3, 0, 262143)
        .describe("Sets the number of connection slots reserved for superusers."),
    int("tcp_keepalives_count", User, ConnAuthSettings, 0, 0, i32::MAX)
        .describe("Maximum number of TCP keepalive retransmits.")
        .extra("Number of consecutive keepalive retransmits that can be lost before a connection is considered dead. A value of 0 uses the system default."),
    int("tcp_keepalives_idle", User, ConnAuthSettings, 0, 0, i32::MAX)
        .unit(S)
        .describe("Time between issuing TCP keepalives.")
        .extra("A value of 0 uses the system default."),
    int("tcp_keepalives_interval", User, ConnAuthSettings, 0, 0, i32::MAX)
        .unit(S)
        .describe("Time between TCP keepalive retransmits.")
        .extra("A value of 0 uses the system default."),
    int("tcp_user_timeout", User, ConnAuthSettings, 0, 0, i32::MAX)
        .unit(Ms)
        .describe("TCP user timeout.")
        .extra("A value of 0 uses the system default."),
    string("unix_socket_directories", Postmaster, ConnAuthSettings, Some("/var/run/postgresql"))
        .flags(LIST_INPUT | LIST_QUOTE | SUPERUSER_ONLY)
        .describe("Sets the directories where Unix-domain sockets will be created."),
    string("unix_socket_group", Postmaster, ConnAuthSettings, Some(""))
        .flags(SUPERUSER_ONLY)
        .describe("Sets the owning group of the Unix-domain socket.")
        .extra("The owning user of the socket is always the user that starts the server."),
    int("unix_socket_permissions", Postmaster, ConnAuthSettings, 511, 0, 511)
        .show(hooks::show_octal)
        .describe("Sets the access permissions of the Unix-domain socket.")
        .extra("Unix-domain sockets use the usual Unix file system permission set. The parameter value is expected to be a numeric mode specification in the form accepted by the chmod and umask system calls. (To use the customary octal format the number must start with a 0 (zero).)"),
];
