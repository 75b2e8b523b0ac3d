//! TLS to PostgreSQL with rustls, and `sslmode` as libpq means it (issue 23, item 4).
//!
//! | sslmode     | TLS                         | certificate checked                 |
//! |-------------|-----------------------------|-------------------------------------|
//! | disable     | never                       | —                                   |
//! | prefer      | if the server offers it     | as require                          |
//! | require     | always                      | no; against `sslrootcert` if given  |
//! | verify-ca   | always                      | chain to `sslrootcert`, not the name |
//! | verify-full | always                      | chain and host name                 |
//!
//! `prefer` is the default, as in libpq. `sslrootcert=system` trusts the Mozilla roots
//! (webpki-roots) and, as in libpq, means verify-full. The driver knows only disable,
//! prefer and require: cite takes `sslmode` and `sslrootcert` out of the URL, gives the
//! driver the one of those three that starts the same, and checks the certificate itself.

use std::path::Path;
use std::sync::Arc;

use percent_encoding::percent_decode_str;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ClientConfig, WebPkiServerVerifier};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::SslMode as DriverMode;
use tokio_postgres_rustls::MakeRustlsConnect;

/// `sslmode`, as libpq names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// What the server's certificate is checked against.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Roots {
    None,
    /// The certificates of an `sslrootcert` file.
    File(Vec<CertificateDer<'static>>),
    /// `sslrootcert=system`.
    System,
}

/// A ledger URL's TLS settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsSettings {
    mode: SslMode,
    roots: Roots,
}

/// How a connection starts.
pub enum Tls {
    Off,
    On(MakeRustlsConnect),
}

/// The URL without the parameters cite handles itself, for the driver, and the TLS
/// settings they gave. The error is a reason for a usage error.
pub fn split(url: &str) -> Result<(String, TlsSettings), String> {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, q),
        None => (url, ""),
    };
    let mut kept = Vec::new();
    let mut mode = None;
    let mut rootcert = None;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let key = percent_decode_str(key).decode_utf8_lossy();
        let value = || percent_decode_str(value).decode_utf8_lossy().into_owned();
        match key.as_ref() {
            "sslmode" => mode = Some(value()),
            "sslrootcert" => rootcert = Some(value()),
            "sslcert" | "sslkey" | "sslpassword" | "sslcrl" | "sslcrldir" => {
                return Err(format!(
                    "{key} is not supported: cite logs in with a password, not a client \
                     certificate, and checks no revocation list"
                ));
            }
            _ => kept.push(pair),
        }
    }
    let given = match mode.as_deref() {
        None => None,
        Some("disable") => Some(SslMode::Disable),
        Some("prefer") => Some(SslMode::Prefer),
        Some("require") => Some(SslMode::Require),
        Some("verify-ca") => Some(SslMode::VerifyCa),
        Some("verify-full") => Some(SslMode::VerifyFull),
        Some("allow") => {
            return Err("sslmode=allow is not supported: write prefer or require".into());
        }
        Some(other) => {
            return Err(format!(
                "unknown sslmode {other:?}: write disable, prefer, require, verify-ca or verify-full"
            ));
        }
    };
    let (mode, roots) = match rootcert.as_deref() {
        None | Some("") => {
            let mode = given.unwrap_or(SslMode::Prefer);
            if matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull) {
                return Err(format!(
                    "sslmode={} needs sslrootcert=FILE, the PEM file of the certificate \
                     authority that signed the server's certificate (or sslrootcert=system)",
                    name(mode)
                ));
            }
            (mode, Roots::None)
        }
        Some("system") => match given {
            None | Some(SslMode::VerifyFull) => (SslMode::VerifyFull, Roots::System),
            Some(weaker) => {
                return Err(format!(
                    "sslrootcert=system needs sslmode=verify-full, not {}",
                    name(weaker)
                ));
            }
        },
        Some(file) => (
            given.unwrap_or(SslMode::Prefer),
            Roots::File(read_roots(file)?),
        ),
    };
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((url, TlsSettings { mode, roots }))
}

fn name(mode: SslMode) -> &'static str {
    match mode {
        SslMode::Disable => "disable",
        SslMode::Prefer => "prefer",
        SslMode::Require => "require",
        SslMode::VerifyCa => "verify-ca",
        SslMode::VerifyFull => "verify-full",
    }
}

/// The certificates of a PEM file, at least one.
fn read_roots(file: &str) -> Result<Vec<CertificateDer<'static>>, String> {
    let bad = |why: String| format!("sslrootcert {file}: {why}");
    let certs = CertificateDer::pem_file_iter(Path::new(file))
        .map_err(|e| bad(pem_error(&e)))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(pem_error(&e)))?;
    if certs.is_empty() {
        return Err(bad(
            "holds no PEM certificate (-----BEGIN CERTIFICATE-----)".into(),
        ));
    }
    Ok(certs)
}

fn pem_error(e: &rustls::pki_types::pem::Error) -> String {
    match e {
        rustls::pki_types::pem::Error::Io(io) => format!("cannot read it: {io}"),
        other => format!("not a PEM file: {other:?}"),
    }
}

impl TlsSettings {
    #[cfg(test)]
    pub fn mode(&self) -> SslMode {
        self.mode
    }

    /// The mode the driver starts with: it sends no TLS request for disable, falls back
    /// to plain text for prefer, and insists for the rest.
    pub fn driver_mode(&self) -> DriverMode {
        match self.mode {
            SslMode::Disable => DriverMode::Disable,
            SslMode::Prefer => DriverMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => DriverMode::Require,
        }
    }

    /// The TLS side of a connection.
    pub fn connector(&self) -> Result<Tls, String> {
        if self.mode == SslMode::Disable {
            return Ok(Tls::Off);
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let store = |certs: &[CertificateDer<'static>]| {
            let mut store = RootCertStore::empty();
            let (_, rejected) = store.add_parsable_certificates(certs.iter().cloned());
            if store.is_empty() {
                return Err(format!(
                    "sslrootcert: none of its {rejected} certificate(s) can be used as a root"
                ));
            }
            Ok(Arc::new(store))
        };
        let roots = match &self.roots {
            Roots::None => None,
            Roots::File(certs) => Some(store(certs)?),
            Roots::System => Some(Arc::new(RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            })),
        };
        let verifier: Arc<dyn ServerCertVerifier> = match roots {
            // libpq: without a root certificate, prefer and require check nothing.
            None => Arc::new(Unchecked(provider.signature_verification_algorithms)),
            Some(roots) => {
                let webpki = WebPkiServerVerifier::builder_with_provider(roots, provider.clone())
                    .build()
                    .map_err(|e| format!("sslrootcert: {e}"))?;
                // libpq: prefer and require with a root certificate behave as verify-ca.
                if self.mode == SslMode::VerifyFull {
                    webpki
                } else {
                    Arc::new(ChainOnly(webpki))
                }
            }
        };
        let config = ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS: {e}"))?
            .dangerous()
            .with_custom_certificate_verifier(verifier)
            .with_no_client_auth();
        Ok(Tls::On(MakeRustlsConnect::new(config)))
    }
}

/// Require without a root certificate: any certificate, as libpq; the handshake's
/// signatures are still checked, so the session is bound to the certificate shown (which
/// is what channel binding relies on).
#[derive(Debug)]
struct Unchecked(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}

/// verify-ca: the chain to a root, not the host name. WebPKI checks the chain before
/// the name, so a certificate refused only for its name has a good chain.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// Whether a driver error is a failed TLS negotiation, and what to say of it.
pub fn failure(e: &tokio_postgres::Error) -> Option<String> {
    let text = e.to_string();
    if !text.contains("TLS") && !text.contains("tls") {
        return None;
    }
    let mut reason = text;
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        reason = format!("{reason}: {s}");
        source = s.source();
    }
    Some(reason)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sslmode_and_sslrootcert_are_taken_out_of_the_url() {
        let (url, s) = split("postgres://u@h/db?sslmode=require&application_name=x").unwrap();
        assert_eq!(url, "postgres://u@h/db?application_name=x");
        assert_eq!(s.mode(), SslMode::Require);
        let (url, s) = split("postgres://u@h/db").unwrap();
        assert_eq!(url, "postgres://u@h/db");
        assert_eq!(s.mode(), SslMode::Prefer);
        let (_, s) = split("postgres://u@h/db?sslrootcert=system").unwrap();
        assert_eq!(s.mode(), SslMode::VerifyFull);
        for (url, says) in [
            (
                "postgres://u@h/db?sslmode=bogus",
                "unknown sslmode \"bogus\"",
            ),
            ("postgres://u@h/db?sslmode=verify-full", "needs sslrootcert"),
            (
                "postgres://u@h/db?sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem",
                "cannot read",
            ),
            (
                "postgres://u@h/db?sslmode=require&sslrootcert=system",
                "needs sslmode=verify-full",
            ),
            (
                "postgres://u@h/db?sslcert=c.pem",
                "sslcert is not supported",
            ),
        ] {
            let e = split(url).unwrap_err();
            assert!(e.contains(says), "{url}: {e}");
        }
    }
}
