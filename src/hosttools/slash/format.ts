/** Numbers, money and durations formatted for the host's locale. */

export interface Formatters {
  usd(value: number): string;
  integer(value: number): string;
  seconds(value: number): string;
}

export function formatters(locale: string | undefined): Formatters {
  const usd = new Intl.NumberFormat(locale, { style: "currency", currency: "USD", maximumFractionDigits: 4 });
  const integer = new Intl.NumberFormat(locale, { maximumFractionDigits: 0 });
  const seconds = new Intl.NumberFormat(locale, { style: "unit", unit: "second", unitDisplay: "short", maximumFractionDigits: 0 });
  return {
    usd: (value) => usd.format(value),
    integer: (value) => integer.format(value),
    seconds: (value) => seconds.format(value),
  };
}
