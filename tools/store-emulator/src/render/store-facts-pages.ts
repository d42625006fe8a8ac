import type { Hint } from '../catalogue/store-facts.js';

/*
 * The customer-reviews page's two forms (JSON for the `,29` platform, the older HTML otherwise) and
 * the search hints plist, in the shapes public captures show (see docs/upstream.md).
 */

export interface RatingsSummary {
  adamId: number;
  ratingAverage: number;
  ratingCount: number;
  /** Counts of 1, 2, 3, 4 and 5 stars, in that order. */
  ratingCountList: number[];
  totalNumberOfReviews: number;
}

/** The HTML form: the total in `.rating-count`, then one `.vote .total` per star from five down to one. */
export function ratingsHtml(summary: RatingsSummary): string {
  const rows = [...summary.ratingCountList]
    .reverse()
    .map((count, i) => `<div class="vote"><span class="stars">${5 - i}</span><span class="total">${count}</span></div>`)
    .join('\n');
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Customer Ratings</title></head>
<body><div class="customer-ratings"><div class="rating-count">${summary.ratingCount} Ratings</div>
${rows}
</div></body></html>
`;
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;');

export function searchHintsPlist(hints: Hint[], searchUrl: (term: string) => string): string {
  const items = hints
    .map(
      (h) => `      <dict>
        <key>term</key>
        <string>${escapeXml(h.term)}</string>
        <key>priority</key>
        <integer>${h.priority}</integer>
        <key>url</key>
        <string>${escapeXml(searchUrl(h.term))}</string>
      </dict>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<!DOCTYPE plist PUBLIC "-//Apple Computer//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
  <dict>
    <key>title</key>
    <string>Suggestions</string>
    <key>hints</key>
    <array>
${items}
    </array>
  </dict>
</plist>
`;
}
