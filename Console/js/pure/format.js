// Numbers, money and dates as the console shows them. Dates are UTC, as the reports count days in UTC.
// Pure: no DOM, no fetch (js/pure/ is imported by the unit tests under Node as well as by the pages).

const integerFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 0 });

/** An integer with thousands separators. */
export function count(value) {
  return value === null || value === undefined ? "—" : integerFormat.format(value);
}

/** Milliunits of `currency` as money (`USD 12.34` in the currency's own style); `—` when either is unknown. */
export function money(milliunits, currency) {
  if (milliunits === null || milliunits === undefined || !currency) return "—";
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency, currencyDisplay: "code" }).format(
      milliunits / 1000,
    );
  } catch {
    return `${currency} ${(milliunits / 1000).toFixed(2)}`;
  }
}

/** Bytes in a unit a person reads. */
export function bytes(value) {
  if (value === null || value === undefined) return "—";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let amount = value;
  let unit = 0;
  while (amount >= 1024 && unit < units.length - 1) {
    amount /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? amount : amount.toFixed(1)} ${units[unit]}`;
}

function pad(number) {
  return String(number).padStart(2, "0");
}

/** An instant (ISO 8601) as `YYYY-MM-DD HH:MM UTC`; `—` for none. */
export function dateTime(iso) {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return `${day(date)} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())} UTC`;
}

/** A `Date` (or an ISO string) as its UTC day, `YYYY-MM-DD`. */
export function day(date) {
  const value = date instanceof Date ? date : new Date(date);
  return `${value.getUTCFullYear()}-${pad(value.getUTCMonth() + 1)}-${pad(value.getUTCDate())}`;
}

/** Today's UTC day. */
export function today() {
  return day(new Date());
}

/** `dayText` moved by `days` (negative: earlier). */
export function addDays(dayText, days) {
  const date = new Date(`${dayText}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return day(date);
}

/** Every day from `from` to `to`, both included. */
export function daysBetween(from, to) {
  const days = [];
  for (let current = from; current <= to && days.length < 1000; current = addDays(current, 1)) days.push(current);
  return days;
}

/** Whether `text` is a real day `YYYY-MM-DD`. */
export function isDay(text) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text || "")) return false;
  return day(new Date(`${text}T00:00:00Z`)) === text;
}

/** A store's name as people say it. */
export function storeName(store) {
  const names = { app_store: "App Store", play_store: "Google Play", stripe: "Stripe", apple: "App Store", google: "Google Play" };
  return names[store] || store || "—";
}

/** A snake_case value as words (`grace_period` → `grace period`). */
export function words(value) {
  return value === null || value === undefined ? "—" : String(value).replaceAll("_", " ");
}

/** `text` cut to at most `length` characters, the last one an ellipsis when it was cut. */
export function truncate(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
