//! The Go parameter types of Helm's template functions (Sprig v3.3.0,
//! Helm v4.1.4's own, and `printf`), which Go's `text/template` checks
//! every argument against before a call: a constant must be of the kind
//! (`indent 1.5 "x"`: `expected integer; found 1.5`; `1e3` is an integer),
//! another value must be assignable (`wrong type for value; expected int;
//! got float64`), and the error is reported at the argument. Parameters of
//! type `interface {}` take anything, and so, here, do the types flate
//! represents differently (`time.Time`, Sprig's certificate struct).

use crate::template::{GoType, Sig};

use GoType::{Any, Bool, Float64, Int, List, Map, String as Str, Uint32};

const fn sig(fixed: &'static [GoType]) -> Sig {
    Sig {
        fixed,
        variadic: None,
    }
}

const fn var(fixed: &'static [GoType], rest: GoType) -> Sig {
    Sig {
        fixed,
        variadic: Some(rest),
    }
}

static S: Sig = sig(&[Str]);
static S_S: Sig = sig(&[Str, Str]);
static S_S_S: Sig = sig(&[Str, Str, Str]);
static S_S_I: Sig = sig(&[Str, Str, Int]);
static S_ANY: Sig = sig(&[Str, Any]);
static S_ANY_S: Sig = sig(&[Str, Any, Str]);
static I: Sig = sig(&[Int]);
static I_S: Sig = sig(&[Int, Str]);
static I_S_S: Sig = sig(&[Int, Str, Str]);
static I_I_S: Sig = sig(&[Int, Int, Str]);
static I_I: Sig = sig(&[Int, Int]);
static I_I_I: Sig = sig(&[Int, Int, Int]);
static I_ANY: Sig = sig(&[Int, Any]);
static S_I_S: Sig = sig(&[Str, Int, Str]);
static S_I: Sig = sig(&[Str, Int]);
static M: Sig = sig(&[Map]);
static M_S: Sig = sig(&[Map, Str]);
static M_S_ANY: Sig = sig(&[Map, Str, Any]);
static M_VS: Sig = var(&[Map], Str);
static M_VM: Sig = var(&[Map], Map);
static VM: Sig = var(&[], Map);
static S_VM: Sig = var(&[Str], Map);
static S_VANY: Sig = var(&[Str], Any);
static VI: Sig = var(&[], Int);
static ANY_I_VF: Sig = var(&[Any, Int], Float64);
static ANY_ANY_B: Sig = sig(&[Any, Any, Bool]);
static U_S_S_S_S: Sig = sig(&[Uint32, Str, Str, Str, Str]);
static CERT: Sig = sig(&[Str, List, List, Int]);
static CERT_KEY: Sig = sig(&[Str, List, List, Int, Str]);
static SIGNED: Sig = sig(&[Str, List, List, Int, Any]);
static SIGNED_KEY: Sig = sig(&[Str, List, List, Int, Any, Str]);
static S_S_S_S: Sig = sig(&[Str, Str, Str, Str]);
static ANY_S: Sig = sig(&[Any, Str]);

/// Every function of Helm's whose parameters are not all `interface {}`
/// (or `reflect.Value`, as Go's other built-ins), with their types.
pub static SIGNATURES: &[(&str, &Sig)] = &[
    // Strings.
    ("abbrev", &I_S),
    ("trunc", &I_S),
    ("repeat", &I_S),
    ("indent", &I_S),
    ("nindent", &I_S),
    ("wrap", &I_S),
    ("abbrevboth", &I_I_S),
    ("substr", &I_I_S),
    ("wrapWith", &I_S_S),
    ("trim", &S),
    ("upper", &S),
    ("lower", &S),
    ("title", &S),
    ("untitle", &S),
    ("nospace", &S),
    ("initials", &S),
    ("swapcase", &S),
    ("shuffle", &S),
    ("snakecase", &S),
    ("camelcase", &S),
    ("kebabcase", &S),
    ("sha1sum", &S),
    ("sha256sum", &S),
    ("sha512sum", &S),
    ("adler32sum", &S),
    ("atoi", &S),
    ("b64enc", &S),
    ("b64dec", &S),
    ("b32enc", &S),
    ("b32dec", &S),
    ("base", &S),
    ("dir", &S),
    ("clean", &S),
    ("ext", &S),
    ("isAbs", &S),
    ("osBase", &S),
    ("osClean", &S),
    ("osDir", &S),
    ("osExt", &S),
    ("osIsAbs", &S),
    ("bcrypt", &S),
    ("genPrivateKey", &S),
    ("semver", &S),
    ("fail", &S),
    ("regexQuoteMeta", &S),
    ("urlParse", &S),
    ("getHostByName", &S),
    ("fromYaml", &S),
    ("fromYamlArray", &S),
    ("fromJson", &S),
    ("fromJsonArray", &S),
    ("mustFromJson", &S),
    ("fromToml", &S),
    ("trimAll", &S_S),
    ("trimall", &S_S),
    ("trimSuffix", &S_S),
    ("trimPrefix", &S_S),
    ("contains", &S_S),
    ("hasPrefix", &S_S),
    ("hasSuffix", &S_S),
    ("split", &S_S),
    ("splitList", &S_S),
    ("htpasswd", &S_S),
    ("encryptAES", &S_S),
    ("decryptAES", &S_S),
    ("semverCompare", &S_S),
    ("regexMatch", &S_S),
    ("mustRegexMatch", &S_S),
    ("regexFind", &S_S),
    ("mustRegexFind", &S_S),
    ("toDate", &S_S),
    ("mustToDate", &S_S),
    ("buildCustomCert", &S_S),
    ("replace", &S_S_S),
    ("regexReplaceAll", &S_S_S),
    ("mustRegexReplaceAll", &S_S_S),
    ("regexReplaceAllLiteral", &S_S_S),
    ("mustRegexReplaceAllLiteral", &S_S_S),
    ("regexFindAll", &S_S_I),
    ("mustRegexFindAll", &S_S_I),
    ("regexSplit", &S_S_I),
    ("mustRegexSplit", &S_S_I),
    ("splitn", &S_I_S),
    ("plural", &S_S_I),
    ("join", &S_ANY),
    ("typeIs", &S_ANY),
    ("typeIsLike", &S_ANY),
    ("kindIs", &S_ANY),
    ("include", &S_ANY),
    ("tpl", &S_ANY),
    ("required", &S_ANY),
    ("date", &S_ANY),
    ("dateInZone", &S_ANY_S),
    ("date_in_zone", &S_ANY_S),
    ("htmlDateInZone", &ANY_S),
    ("dateModify", &S_ANY),
    ("date_modify", &S_ANY),
    ("mustDateModify", &S_ANY),
    ("printf", &S_VANY),
    // Numbers.
    ("randAlphaNum", &I),
    ("randAlpha", &I),
    ("randAscii", &I),
    ("randNumeric", &I),
    ("randBytes", &I),
    ("until", &I),
    ("untilStep", &I_I_I),
    ("randInt", &I_I),
    ("seq", &VI),
    ("round", &ANY_I_VF),
    ("chunk", &I_ANY),
    ("mustChunk", &I_ANY),
    // Maps.
    ("get", &M_S),
    ("unset", &M_S),
    ("hasKey", &M_S),
    ("set", &M_S_ANY),
    ("pick", &M_VS),
    ("omit", &M_VS),
    ("merge", &M_VM),
    ("mergeOverwrite", &M_VM),
    ("mustMerge", &M_VM),
    ("mustMergeOverwrite", &M_VM),
    ("keys", &VM),
    ("values", &M),
    ("urlJoin", &M),
    ("pluck", &S_VM),
    // Others.
    ("ternary", &ANY_ANY_B),
    ("derivePassword", &U_S_S_S_S),
    ("genCA", &S_I),
    ("genCAWithKey", &S_I_S),
    ("genSelfSignedCert", &CERT),
    ("genSelfSignedCertWithKey", &CERT_KEY),
    ("genSignedCert", &SIGNED),
    ("genSignedCertWithKey", &SIGNED_KEY),
    ("lookup", &S_S_S_S),
    ("must_date_modify", &S_ANY),
];

#[cfg(test)]
mod tests {
    use crate::template::Templates;

    #[test]
    fn every_function_listed_is_one_of_helms() {
        let mut t = Templates::new();
        crate::helm::funcs::add_funcs_with(&mut t, &Default::default());
        let unknown = t.set_signatures(super::SIGNATURES);
        assert!(unknown.is_empty(), "not functions of Helm's: {unknown:?}");
        let mut names: Vec<&str> = super::SIGNATURES.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let n = names.len();
        names.dedup();
        assert_eq!(n, names.len(), "a function listed twice");
    }
}
