// Judges a list's page and meta roles (sections 4.1, 8, 9): what one list page reports adds up.
import { type ExchangeCheck, jsonBody, type Json } from './exchange.ts';
import {
  judgeDeprecatedMeta,
  judgePages,
  PAGE_ARITHMETIC_ROLES,
  type PageMeta,
  PageVerdict,
  requestedPage,
  unusableMeta,
} from './page-arithmetic.ts';

// Sections 4.1, 8: what one list page reports adds up. Every requirement it can break is judged,
// or marked not judged with the value that kept it from it: never passed in silence.
export const listPageArithmetic: ExchangeCheck = {
  name: 'listPageArithmetic',
  roles: PAGE_ARITHMETIC_ROLES,
  appliesTo: (x) => x.operation?.roles.pageLength !== undefined && x.response.status === 200,
  run(contract, x, _options, verdict) {
    const operation = x.operation!;
    const pageVerdict = new PageVerdict(contract, operation, verdict);
    const body = jsonBody(x.response);
    if (!body || !Array.isArray(body.data)) {
      pageVerdict.cannot('the list answer held no data array', 'pageLength');
      return [];
    }
    const requested = requestedPage(x);
    const length = body.data.length;
    const rawMeta = body.meta;
    const metaObject =
      rawMeta !== null && typeof rawMeta === 'object' && !Array.isArray(rawMeta) ? (rawMeta as Json) : undefined;
    const unusable = metaObject ? unusableMeta(operation, metaObject) : 'the list answer had no meta';
    if (!metaObject || unusable !== undefined) {
      if (requested.limit !== undefined) {
        if (length > requested.limit)
          pageVerdict.fail(
            'pageLength',
            '/data',
            `data holds ${length} items, more than page[limit]=${requested.limit}`,
            `≤ ${requested.limit}`,
            length,
          );
        pageVerdict.holdUnlessBroken('pageLength');
      } else pageVerdict.cannot(`${unusable} and the request gave no page[limit]`, 'pageLength');
      if (metaObject)
        pageVerdict.cannot(unusable!, 'metaPages', 'metaPageNumber', 'metaOffsetEcho', 'metaLimitEffective');
      if (metaObject) judgeDeprecatedMeta(operation, metaObject as Record<string, number>, pageVerdict);
      return pageVerdict.findings;
    }
    const meta = metaObject as unknown as PageMeta;
    if (requested.offset !== undefined) {
      if (meta.offset !== requested.offset)
        pageVerdict.fail(
          'metaOffsetEcho',
          '/meta/offset',
          `meta.offset is ${meta.offset}, the request asked for offset ${requested.offset}`,
          requested.offset,
          meta.offset,
        );
      pageVerdict.holdUnlessBroken('metaOffsetEcho');
    }
    // A page size below 1 cannot be the limit applied (section 8: page.limit has a minimum of 1).
    const metaLimitUsable = meta.limit >= 1;
    if (!metaLimitUsable)
      pageVerdict.fail(
        'metaLimitEffective',
        '/meta/limit',
        `meta.limit is ${meta.limit}: a page size below 1 cannot be the limit applied${requested.limit === undefined ? '' : ` (the request asked for ${requested.limit})`}`,
        requested.limit === undefined ? '≥ 1' : `≤ ${requested.limit}`,
        meta.limit,
      );
    else if (requested.limit !== undefined && meta.limit > requested.limit)
      pageVerdict.fail(
        'metaLimitEffective',
        '/meta/limit',
        `meta.limit is ${meta.limit}, above the requested ${requested.limit}`,
        `≤ ${requested.limit}`,
        meta.limit,
      );
    if (meta.total < 0) {
      pageVerdict.fail(
        'metaTotal',
        '/meta/total',
        `meta.total is ${meta.total}: a count of items is never negative`,
        '≥ 0',
        meta.total,
      );
      pageVerdict.cannot(`meta.total was ${meta.total}`, 'metaPages');
    } else {
      judgePages(meta, pageVerdict);
      pageVerdict.holdUnlessBroken('metaPages');
    }
    const effectiveLimit =
      requested.limit === undefined
        ? metaLimitUsable
          ? meta.limit
          : undefined
        : metaLimitUsable
          ? Math.min(requested.limit, meta.limit)
          : requested.limit;
    const offset = requested.offset ?? meta.offset;
    const lengthUnknown =
      meta.total < 0
        ? `meta.total was ${meta.total}`
        : offset < 0
          ? `meta.offset was ${offset}`
          : effectiveLimit === undefined
            ? `meta.limit was ${meta.limit} and the request gave no page[limit]`
            : undefined;
    if (lengthUnknown !== undefined) {
      pageVerdict.cannot(lengthUnknown, 'pageLength', 'metaPageNumber');
      if (metaLimitUsable) pageVerdict.holdUnlessBroken('metaLimitEffective');
    } else {
      const limit = effectiveLimit!;
      const expectedLength = Math.min(limit, Math.max(0, meta.total - offset));
      // The maximum page size is not shown (section 8): a shorter page than was due may be a cap
      // of `length` that meta.limit does not report, which only breaks the SHOULD on meta.limit.
      if (length >= 1 && length < expectedLength)
        pageVerdict.fail(
          'metaLimitEffective',
          '/meta/limit',
          `data holds ${length} items where ${expectedLength} were due: a page size cap of ${length} that meta.limit (${meta.limit}) does not report`,
          `≤ ${length}`,
          meta.limit,
        );
      else if (length !== expectedLength)
        pageVerdict.fail(
          'pageLength',
          '/data',
          `data holds ${length} items; with total ${meta.total}, offset ${offset} and limit ${limit} it should hold ${expectedLength}`,
          expectedLength,
          length,
        );
      const page = Math.floor(offset / limit) + 1;
      if (meta.page !== page)
        pageVerdict.fail(
          'metaPageNumber',
          '/meta/page',
          `meta.page is ${meta.page}, floor(offset ${offset} / limit ${limit}) + 1 is ${page}`,
          page,
          meta.page,
        );
      pageVerdict.holdUnlessBroken('pageLength', 'metaPageNumber', 'metaLimitEffective');
    }
    judgeDeprecatedMeta(operation, metaObject as Record<string, number>, pageVerdict);
    return pageVerdict.findings;
  },
};
