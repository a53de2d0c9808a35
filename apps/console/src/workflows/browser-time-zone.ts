/** The browser's IANA time zone (`Europe/Paris`), in which `formatTime` shows times: the page names it. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
