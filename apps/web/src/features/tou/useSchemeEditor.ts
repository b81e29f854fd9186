/**
 * The scheme being edited on /timetariff and /chargestrategy: the scheme list, the chosen
 * scheme (shared by both screens for the session), its working copy, the unsaved-changes
 * state, the rule issues of the working copy, and saving.
 *
 * Saving runs the contract's `validateScheme(doc, {today})` in the browser first and sends only
 * a valid document (`tou/save` for a new scheme, `tou/update` with the version it was read at);
 * the server checks the same rules again. 3093 (someone saved in between) marks the copy stale
 * and offers to reload it.
 */
import {
  ErrorCode,
  type TouIssue,
  type TouSchemeDetail,
  type TouSchemeDocument,
  type TouSchemeRow,
  type TwoPartTariff,
  validateScheme,
} from '@ess/contract';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { create } from 'zustand';
import { isApiError } from '@/shared/api/errors';
import { confirmDialog, showError, showSuccess } from '@/shared/feedback';
import { createScheme, fetchScheme, fetchSchemes, touKeys, updateScheme } from './api';
import { todayIso } from './model';

/** The scheme chosen on either screen (kept while the session's page lives). */
const useSelection = create<{ id: number | null; set: (id: number | null) => void }>((set) => ({
  id: null,
  set: (id) => set({ id }),
}));

/** The working copy of a scheme. `id` null: a new scheme not saved yet. */
export interface Draft {
  id: number | null;
  version: number | null;
  name: string;
  document: TouSchemeDocument;
  /** Two-part (basic) charge entered with the scheme; null: single-part (issue 17 item 2). */
  twoPart: TwoPartTariff | null;
}

export interface SchemeEditor {
  schemes: TouSchemeRow[] | undefined;
  schemesLoading: boolean;
  /** The stored scheme (with its sites), when a saved scheme is chosen. */
  detail: TouSchemeDetail | undefined;
  detailLoading: boolean;
  draft: Draft | null;
  dirty: boolean;
  stale: boolean;
  /** Every rule issue of the working copy (empty when valid). */
  issues: TouIssue[];
  saving: boolean;
  /** Choose a stored scheme (asks first when changes would be lost). */
  select: (id: number) => Promise<void>;
  /** Start a new, unsaved scheme (asks first when changes would be lost). */
  startNew: (name: string, document: TouSchemeDocument) => Promise<boolean>;
  /** Change the working document. */
  update: (change: (doc: TouSchemeDocument) => TouSchemeDocument) => void;
  /** Set the working copy's name (the new scheme's, or after a rename). */
  setName: (name: string) => void;
  /** Set the working copy's two-part charge. */
  setTwoPart: (twoPart: TwoPartTariff | null) => void;
  /**
   * Site-local date (`YYYY-MM-DD`) the next save's prices (and the next site assignment) apply
   * from; null: each site's today (tariff history, issue 17 item 2).
   */
  effectiveFrom: string | null;
  setEffectiveFrom: (date: string | null) => void;
  /** Validate and save; resolves true when stored. */
  save: () => Promise<boolean>;
  /** Drop the working copy and read the stored scheme again. */
  reload: () => void;
  /** After the chosen scheme was deleted. */
  forget: () => void;
  /** After a rename was stored: the new name and version. */
  renamed: (name: string, version: number) => void;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function draftOf(detail: TouSchemeDetail): Draft {
  return {
    id: detail.id,
    version: detail.version,
    name: detail.name,
    document: detail.document,
    twoPart: detail.twoPart ?? null,
  };
}

/** The editor state; one per screen. */
export function useSchemeEditor(): SchemeEditor {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const selectedId = useSelection((s) => s.id);
  const setSelectedId = useSelection((s) => s.set);

  const list = useQuery({ queryKey: touKeys.list(''), queryFn: () => fetchSchemes() });
  const schemes = list.data?.list;

  const [draft, setDraft] = useState<Draft | null>(null);
  /** The stored state the working copy started from (null for a new scheme). */
  const [base, setBase] = useState<Draft | null>(null);
  const [stale, setStale] = useState(false);
  const [saving, setSaving] = useState(false);

  // The first visit chooses the first scheme; a scheme that disappeared is dropped.
  useEffect(() => {
    if (!schemes) return;
    if (selectedId === null && draft === null && schemes[0]) setSelectedId(schemes[0].id);
    if (selectedId !== null && !schemes.some((s) => s.id === selectedId))
      setSelectedId(schemes[0]?.id ?? null);
  }, [schemes, selectedId, draft, setSelectedId]);

  const detailQuery = useQuery({
    queryKey: touKeys.detail(selectedId ?? 0),
    queryFn: () => fetchScheme(selectedId!),
    enabled: selectedId !== null,
  });
  const detail = selectedId !== null && detailQuery.data?.id === selectedId ? detailQuery.data : undefined;

  // A stored scheme read for the first time, or at a new version (reload): the working copy
  // starts from it. Refetches of the same version (sites changed) keep the edits.
  useEffect(() => {
    if (!detail) return;
    const fresh = draftOf(detail);
    if (base?.id === fresh.id && base.version === fresh.version) return;
    setBase(fresh);
    setDraft(fresh);
    setStale(false);
  }, [detail, base]);

  const dirty =
    draft !== null &&
    (base === null ||
      !same(draft.document, base.document) ||
      draft.name !== base.name ||
      !same(draft.twoPart, base.twoPart));

  const today = todayIso();
  const issues = useMemo(() => (draft ? validateScheme(draft.document, { today }) : []), [draft, today]);

  const confirmDiscard = useCallback(async () => {
    if (!dirty) return true;
    return confirmDialog({
      title: t('tou.scheme.discardTitle'),
      content: t('tou.scheme.discardContent'),
      okText: t('tou.scheme.discard'),
      cancelText: t('common.cancel'),
    });
  }, [dirty, t]);

  const select = useCallback(
    async (id: number) => {
      if (id === selectedId && draft?.id === id) return;
      if (!(await confirmDiscard())) return;
      setBase(null);
      setDraft(null);
      setSelectedId(id);
    },
    [selectedId, draft, confirmDiscard, setSelectedId],
  );

  const startNew = useCallback(
    async (name: string, document: TouSchemeDocument) => {
      if (!(await confirmDiscard())) return false;
      setSelectedId(null);
      setBase(null);
      setStale(false);
      setDraft({ id: null, version: null, name, document, twoPart: null });
      return true;
    },
    [confirmDiscard, setSelectedId],
  );

  const update = useCallback((change: (doc: TouSchemeDocument) => TouSchemeDocument) => {
    setDraft((d) => (d ? { ...d, document: change(d.document) } : d));
  }, []);

  const setName = useCallback((name: string) => setDraft((d) => (d ? { ...d, name } : d)), []);
  const setTwoPart = useCallback(
    (twoPart: TwoPartTariff | null) => setDraft((d) => (d ? { ...d, twoPart } : d)),
    [],
  );
  const [effectiveFrom, setEffectiveFrom] = useState<string | null>(null);

  const save = useCallback(async () => {
    if (!draft) return false;
    if (issues.length > 0) {
      showError(t('tou.fixIssues', { count: issues.length }));
      return false;
    }
    setSaving(true);
    try {
      if (draft.id === null) {
        const answer = await createScheme(draft.name, draft.document, draft.twoPart);
        await queryClient.invalidateQueries({ queryKey: touKeys.list('') });
        setBase(null);
        setDraft(null);
        setSelectedId(answer.id);
      } else {
        const answer = await updateScheme(draft.id, draft.version ?? 1, draft.name, draft.document, {
          twoPart: draft.twoPart,
          effectiveFrom,
        });
        const saved = { ...draft, version: answer.version };
        setBase(saved);
        setDraft(saved);
        void queryClient.invalidateQueries({ queryKey: touKeys.all });
      }
      showSuccess(t('tou.scheme.saved'));
      return true;
    } catch (err) {
      if (isApiError(err) && err.code === ErrorCode.TOU_SCHEME_STALE) setStale(true);
      return false;
    } finally {
      setSaving(false);
    }
  }, [draft, issues, queryClient, setSelectedId, t, effectiveFrom]);

  const reload = useCallback(() => {
    setBase(null);
    setDraft(null);
    setStale(false);
    void queryClient.invalidateQueries({ queryKey: touKeys.all });
  }, [queryClient]);

  const forget = useCallback(() => {
    setBase(null);
    setDraft(null);
    setSelectedId(null);
    void queryClient.invalidateQueries({ queryKey: touKeys.list('') });
  }, [queryClient, setSelectedId]);

  const renamed = useCallback(
    (name: string, version: number) => {
      setBase((b) => (b ? { ...b, name, version } : b));
      setDraft((d) => (d ? { ...d, name, version } : d));
      void queryClient.invalidateQueries({ queryKey: touKeys.all });
    },
    [queryClient],
  );

  // Leaving the page (reload, close) with unsaved changes asks the browser's question.
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  return {
    schemes,
    schemesLoading: list.isLoading,
    detail,
    detailLoading: selectedId !== null && detailQuery.isLoading,
    draft,
    dirty,
    stale,
    issues,
    saving,
    select,
    startNew,
    update,
    setTwoPart,
    effectiveFrom,
    setEffectiveFrom,
    setName,
    save,
    reload,
    forget,
    renamed,
  };
}
