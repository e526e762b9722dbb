// Request header names as origins compare them (pure; unit-tested). The proxy decides where a
// secret's value may go by a header's name, so it must see two spellings as one header
// whenever some origin does, or a guard on "X-Request-Id" is passed by "X_Request_Id":
//   - CGI/WSGI/PHP (RFC 3875 4.1.18: HTTP_ + upper case, '-' -> '_'; Apache maps every
//     character that is not alphanumeric to '_'), so wsgiref sees X-Request-Id, X_Request_Id
//     and X.Request.Id as one environ key; nginx's $http_* variables likewise (with
//     underscores_in_headers on);
//   - Node, Go (CanonicalMIMEHeaderKey), Rack, Beast: case only.
// CanonicalHeaderName folds all of these: ASCII lower case, every character that is not a
// letter or a digit becomes '-', surrounding whitespace dropped. Two names with the same
// canonical form may be the same header to an origin.
#pragma once

#include <string>
#include <string_view>

namespace sandshim::net {

std::string CanonicalHeaderName(std::string_view name);

// Headers an origin may hand back to the client (canonical or not): by protocol (CORS's
// Origin and Access-Control-Request-*, TRACE), by convention (request and trace ids,
// Idempotency-Key, forwarding headers) or in error pages (Referer, User-Agent, Accept,
// Content-Type, Expect). A secret's header may never be one of them (refused at create), and
// a placeholder in one is refused at request time.
bool ReflectableHeader(std::string_view name);

// With no header named by the secret: the credential headers a placeholder may be written in
// (Authorization, X-Api-Key, Api-Key, X-Auth-Token, Private-Token). Deny by default: any other
// header is refused, since any header can be quoted back by some application.
bool DefaultCredentialHeader(std::string_view name);

// Headers by which an application may take a request for another method than its request
// line's (Rails, Laravel, Express method-override, Google APIs).
bool MethodOverrideHeader(std::string_view name);
// Headers by which Symfony, IIS's URL rewrite and some front ends route to another path than
// the request line's: a path-scoped secret is not put into a request that carries one.
bool PathOverrideHeader(std::string_view name);

}  // namespace sandshim::net
