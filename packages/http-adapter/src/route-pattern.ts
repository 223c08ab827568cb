/** A route path with `:params` as a regular expression of the paths it answers (for 404 against 405). */
export function routePattern(path: string): RegExp {
  return new RegExp(`^${path.replace(/:[a-z]+/g, '[^/]+')}/?$`);
}
